(function() {
  const s = getComputedStyle(this);
  const r = this.getBoundingClientRect();
  return s.visibility === 'visible' && r.width > 0 && r.height > 0;
})
