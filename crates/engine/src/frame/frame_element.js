(function() {
  const el = this;
  const attr = (name) => (el.getAttribute && el.getAttribute(name)) || '';
  return { tag: el.tagName || '', name: attr('name'), id: attr('id'), src: attr('src') };
})
