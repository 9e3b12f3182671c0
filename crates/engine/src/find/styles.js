(function() {
  const s = getComputedStyle(this);
  const keys = ['display', 'visibility', 'opacity', 'color', 'background-color', 'font-size', 'font-family',
    'font-weight', 'width', 'height', 'position', 'z-index', 'cursor', 'pointer-events', 'overflow'];
  const out = {};
  for (const k of keys) out[k] = s.getPropertyValue(k);
  return out;
})
