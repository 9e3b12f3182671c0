(function() {
  const doc = this && this.nodeType === 9 ? this : document;
  const out = [];
  const body = doc.body;
  if (!body) return out;
  const view = doc.defaultView || window;
  const tags = {a:1, button:1, input:1, select:1, textarea:1, details:1, summary:1};
  const roles = {button:1, link:1, textbox:1, checkbox:1, radio:1, combobox:1, listbox:1, menuitem:1,
    menuitemcheckbox:1, menuitemradio:1, option:1, searchbox:1, slider:1, spinbutton:1, switch:1, tab:1, treeitem:1};
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const all = body.querySelectorAll('*');
  for (let i = 0; i < all.length; i++) {
    const el = all[i];
    if (tags[el.localName]) continue;
    const role = (el.getAttribute('role') || '').trim().toLowerCase().split(/\s+/)[0];
    if (roles[role]) continue;
    const onclick = el.hasAttribute('onclick') || el.onclick != null;
    const ti = el.getAttribute('tabindex');
    const tabindex = ti !== null && ti !== '-1';
    const ce = el.getAttribute('contenteditable');
    const editable = ce === '' || ce === 'true' || ce === 'plaintext-only';
    const style = view.getComputedStyle(el);
    const pointer = style.cursor === 'pointer';
    if (!pointer && !onclick && !tabindex && !editable) continue;
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    if (el.closest('[hidden], [aria-hidden="true"]')) continue;
    // cursor:pointer alone that is only inherited from the parent is not a control of its own.
    if (pointer && !onclick && !tabindex && !editable) {
      const parent = el.parentElement;
      if (parent && view.getComputedStyle(parent).cursor === 'pointer') continue;
    }
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    let hiddenType = null, hiddenChecked = null;
    const input = el.querySelector('input[type="radio"], input[type="checkbox"]');
    if (input) {
      const s = view.getComputedStyle(input);
      if (s.display === 'none' || s.visibility === 'hidden' || input.hidden) {
        hiddenType = input.type;
        hiddenChecked = input.indeterminate ? 'mixed' : String(input.checked);
      }
    }
    const text = norm(el.getAttribute('aria-label') || el.getAttribute('title') || el.textContent).slice(0, 100);
    el.setAttribute('data-__ab-ci', String(out.length));
    out.push([(pointer ? 1 : 0) | (onclick ? 2 : 0) | (tabindex ? 4 : 0) | (editable ? 8 : 0), text, hiddenType, hiddenChecked]);
  }
  return out;
})
