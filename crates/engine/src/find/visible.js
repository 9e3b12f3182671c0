(function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return false;
  const s = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  return s.visibility === 'visible' && r.width > 0 && r.height > 0;
})
