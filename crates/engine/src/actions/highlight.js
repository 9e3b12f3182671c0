(function() {
  // A 2px red outline 2px outside the element for three seconds, as upstream draws it; then the
  // element's own inline outline comes back. A second highlight restarts the three seconds.
  const el = this;
  const key = Symbol.for('abx.highlight');
  const saved = el[key] || {outline: el.style.outline, offset: el.style.outlineOffset};
  clearTimeout(saved.timer);
  el.style.outline = '2px solid red';
  el.style.outlineOffset = '2px';
  saved.timer = setTimeout(() => {
    el.style.outline = saved.outline;
    el.style.outlineOffset = saved.offset;
    delete el[key];
  }, 3000);
  el[key] = saved;
})
