(function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const view = el.ownerDocument.defaultView;
  const r0 = el.getBoundingClientRect();
  if (r0.top < 0 || r0.left < 0 || r0.bottom > view.innerHeight || r0.right > view.innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center'});
  }
  const r = el.getBoundingClientRect();
  return {x: r.x + view.scrollX, y: r.y + view.scrollY, width: r.width, height: r.height};
})
