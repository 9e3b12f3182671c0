(function() {
  const doc = this.ownerDocument || this;
  const view = doc.defaultView;
  const key = Symbol.for('abx.clickGuard');
  const guard = view && view[key];
  if (!guard) return null;
  guard.disarm();
  delete view[key];
  return guard.miss;
})
