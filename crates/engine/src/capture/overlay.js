(function(labels) {
  const old = document.getElementById('__abx_annotations');
  if (old) old.remove();
  const root = document.createElement('div');
  root.id = '__abx_annotations';
  root.setAttribute('aria-hidden', 'true');
  root.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none;';
  const sx = window.scrollX, sy = window.scrollY;
  for (const [n, x, y, w, h] of labels) {
    const frame = document.createElement('div');
    frame.style.cssText = 'position:absolute;box-sizing:border-box;border:2px solid #e11d48;border-radius:2px;' +
      'left:' + (x + sx) + 'px;top:' + (y + sy) + 'px;width:' + w + 'px;height:' + h + 'px;';
    const tag = document.createElement('div');
    tag.textContent = '[' + n + ']';
    tag.style.cssText = 'position:absolute;left:-2px;top:-16px;background:#e11d48;color:#fff;font:bold 11px/14px ' +
      'monospace;padding:0 3px;border-radius:2px;white-space:nowrap;';
    frame.appendChild(tag);
    root.appendChild(frame);
  }
  document.documentElement.appendChild(root);
  return labels.map(([n, x, y, w, h]) => [n, x + sx, y + sy, w, h]);
})
