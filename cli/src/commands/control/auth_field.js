(function(selectors) {
  for (const selector of selectors) {
    let nodes;
    try { nodes = document.querySelectorAll(selector); } catch (e) { continue; }
    for (const el of nodes) {
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none'
          && Number(style.opacity) > 0 && !el.disabled && !el.readOnly) {
        return selector;
      }
    }
  }
  return false;
})
