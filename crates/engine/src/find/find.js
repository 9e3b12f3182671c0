(function(kind, text, exact) {
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const want = exact ? norm(text) : norm(text).toLowerCase();
  const match = (s) => { const t = norm(s); return exact ? t === want : t.toLowerCase().includes(want); };
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const first = (list) => list.find(visible) || list[0] || null;
  const all = (sel) => Array.from(document.querySelectorAll(sel));
  if (kind === 'text') {
    const skip = {script: 1, style: 1, noscript: 1, template: 1, head: 1, title: 1};
    const hits = [];
    for (const el of all('body, body *')) {
      if (skip[el.localName] || !match(el.textContent)) continue;
      if (Array.from(el.children).some((c) => !skip[c.localName] && match(c.textContent))) continue;
      hits.push(el);
    }
    return first(hits);
  }
  if (kind === 'label') {
    const hits = [];
    for (const label of all('label')) if (match(label.textContent) && label.control) hits.push(label.control);
    for (const el of all('[aria-label]')) if (match(el.getAttribute('aria-label'))) hits.push(el);
    for (const el of all('[aria-labelledby]')) {
      const ids = el.getAttribute('aria-labelledby').split(/\s+/);
      const t = ids.map((id) => { const n = document.getElementById(id); return n ? n.textContent : ''; }).join(' ');
      if (match(t)) hits.push(el);
    }
    return first(hits);
  }
  if (kind === 'testid') return first(all('[data-testid]').filter((el) => el.getAttribute('data-testid') === text));
  const attr = {placeholder: 'placeholder', alt: 'alt', title: 'title'}[kind];
  return first(all('[' + attr + ']').filter((el) => match(el.getAttribute(attr))));
})
