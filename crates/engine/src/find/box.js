(function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const r = el.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height};
})
