(function() {
  // `this` is the element (the click may have removed it), or the window when the call names
  // only the page's context.
  const doc = this.ownerDocument || this.document || this;
  const view = doc.defaultView;
  const key = Symbol.for('abx.clickGuard');
  const guard = view && view[key];
  if (!guard) return null;
  guard.disarm();
  delete view[key];
  return guard.miss;
})
