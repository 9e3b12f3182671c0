(function(...els) {
  return els.map((el) => {
    if (!el || !el.isConnected) return null;
    const e = el.nodeType === 1 ? el : el.parentElement;
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    if (r.width <= 0 || r.height <= 0 || s.visibility !== 'visible') return null;
    return [r.x, r.y, r.width, r.height];
  });
})
