(async function(...args) {
  if (!this.isConnected) return {__abxDetached: true};
  return await (__ABX_FUNCTION__).apply(this, args);
})
