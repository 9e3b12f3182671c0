(function(value, setDirect) {
  const el = this;
  const tag = el.localName;
  const direct = ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range'];
  el.focus();
  if (tag === 'input' || tag === 'textarea') {
    const proto = tag === 'input' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    const set = Object.getOwnPropertyDescriptor(proto, 'value').set;
    if (setDirect && tag === 'input' && direct.includes(el.type)) {
      set.call(el, value);
      el.dispatchEvent(new Event('input', {bubbles: true}));
      el.dispatchEvent(new Event('change', {bubbles: true}));
      return 'done';
    }
    if (el.value !== '') {
      set.call(el, '');
      el.dispatchEvent(new Event('input', {bubbles: true}));
    }
    return 'insert';
  }
  if (el.isContentEditable) {
    const doc = el.ownerDocument;
    const range = doc.createRange();
    range.selectNodeContents(el);
    const sel = doc.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    if (el.textContent !== '') doc.execCommand('delete');
    return 'insert';
  }
  return 'Element is not an <input>, <textarea> or [contenteditable] element';
})
