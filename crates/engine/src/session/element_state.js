(function(e, state) {
  const visible = (el) => {
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0;
  };
  if (state === 'attached') return !!e;
  if (state === 'detached') return !e;
  if (state === 'hidden') return !e || !visible(e);
  return !!e && visible(e);
})
