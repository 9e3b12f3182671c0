(function() {
  // Every computed property (as upstream reports them), by name.
  const s = getComputedStyle(this);
  const out = {};
  for (let i = 0; i < s.length; i++) {
    const k = s[i];
    out[k] = s.getPropertyValue(k);
  }
  return out;
})
