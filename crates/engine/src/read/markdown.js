(function (options) {
  // The rendered page as Markdown (or its heading outline). Skips what a reader does not see:
  // scripts, styles, hidden elements, navigation chrome.
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'CANVAS', 'NAV', 'IFRAME', 'HEAD']);
  const hidden = (el) => {
    if (el.hidden || el.getAttribute('aria-hidden') === 'true') return true;
    const style = getComputedStyle(el);
    return style.display === 'none' || style.visibility === 'hidden';
  };
  const squash = (s) => s.replace(/\s+/g, ' ');
  const abs = (href) => { try { return new URL(href, location.href).href; } catch (e) { return href; } };

  // Inline content of a node as Markdown text.
  function inline(node) {
    let out = '';
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { out += squash(child.textContent); continue; }
      if (child.nodeType !== Node.ELEMENT_NODE || skip.has(child.tagName) || hidden(child)) continue;
      const tag = child.tagName;
      const inner = inline(child);
      if (tag === 'BR') out += '\n';
      else if (tag === 'STRONG' || tag === 'B') out += inner.trim() ? '**' + inner.trim() + '**' : '';
      else if (tag === 'EM' || tag === 'I') out += inner.trim() ? '*' + inner.trim() + '*' : '';
      else if (tag === 'CODE') out += '`' + child.textContent + '`';
      else if (tag === 'A' && child.getAttribute('href') && !child.getAttribute('href').startsWith('javascript:')) {
        out += inner.trim() ? '[' + inner.trim() + '](' + abs(child.getAttribute('href')) + ')' : '';
      } else if (tag === 'IMG') out += child.alt ? '![' + child.alt + '](' + abs(child.getAttribute('src') || '') + ')' : '';
      else out += inner;
    }
    return out;
  }

  const blocks = [];
  const headings = [];
  const push = (text) => { const t = text.replace(/[ \t]+\n/g, '\n').trim(); if (t) blocks.push(t); };

  function list(el, depth) {
    const ordered = el.tagName === 'OL';
    let n = 1;
    const lines = [];
    for (const li of el.children) {
      if (li.tagName !== 'LI' || hidden(li)) continue;
      const nested = [];
      const clone = li.cloneNode(true);
      for (const sub of clone.querySelectorAll('ul, ol')) sub.remove();
      const marker = ordered ? (n++) + '. ' : '- ';
      lines.push('  '.repeat(depth) + marker + inline(clone).trim());
      for (const sub of li.children) {
        if (sub.tagName === 'UL' || sub.tagName === 'OL') nested.push(list(sub, depth + 1));
      }
      lines.push(...nested);
    }
    return lines.join('\n');
  }

  function table(el) {
    const rows = [...el.querySelectorAll('tr')].map((tr) =>
      [...tr.children].map((cell) => inline(cell).trim().replace(/\|/g, '\\|')));
    if (!rows.length) return '';
    const width = Math.max(...rows.map((r) => r.length));
    const line = (r) => '| ' + Array.from({ length: width }, (_, i) => r[i] || '').join(' | ') + ' |';
    const out = [line(rows[0]), '| ' + Array(width).fill('---').join(' | ') + ' |'];
    for (const r of rows.slice(1)) out.push(line(r));
    const caption = el.querySelector('caption');
    return (caption ? inline(caption).trim() + '\n\n' : '') + out.join('\n');
  }

  function walk(el) {
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { push(squash(child.textContent)); continue; }
      if (child.nodeType !== Node.ELEMENT_NODE || skip.has(child.tagName) || hidden(child)) continue;
      const tag = child.tagName;
      const level = /^H([1-6])$/.exec(tag);
      if (level) {
        const text = inline(child).trim();
        if (text) {
          headings.push({ level: Number(level[1]), text, block: blocks.length });
          push('#'.repeat(Number(level[1])) + ' ' + text);
        }
      } else if (tag === 'P') push(inline(child));
      else if (tag === 'UL' || tag === 'OL') push(list(child, 0));
      else if (tag === 'PRE') push('```\n' + child.textContent.replace(/\n$/, '') + '\n```');
      else if (tag === 'BLOCKQUOTE') push(inline(child).trim().split('\n').map((l) => '> ' + l).join('\n'));
      else if (tag === 'TABLE') push(table(child));
      else if (tag === 'HR') push('---');
      else if (tag === 'IMG' || tag === 'A' || tag === 'STRONG' || tag === 'EM' || tag === 'CODE' || tag === 'SPAN') push(inline({ childNodes: [child] }));
      else walk(child);
    }
  }

  walk(document.body || document.documentElement);

  if (options.outline) {
    const base = headings.length ? Math.min(...headings.map((h) => h.level)) : 1;
    const lines = headings.map((h) => '  '.repeat(h.level - base) + '- ' + h.text);
    return '# Outline\n\nSource: ' + location.href + '\n\n' + (lines.join('\n') || '(no headings)');
  }
  let kept = blocks;
  if (options.filter) {
    const needle = options.filter.toLowerCase();
    const picked = new Set();
    headings.forEach((h, i) => {
      if (!h.text.toLowerCase().includes(needle)) return;
      // The section runs to the next heading of the same or a higher level.
      const next = headings.slice(i + 1).find((o) => o.level <= h.level);
      const end = next ? next.block : blocks.length;
      for (let b = h.block; b < end; b++) picked.add(b);
    });
    kept = blocks.filter((_, b) => picked.has(b));
  }
  return kept.join('\n\n');
})
