(function() {
  const el = this;
  if (el.localName === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
  const aria = el.getAttribute && el.getAttribute('aria-checked');
  if (aria === 'true' || aria === 'mixed') return true;
  if (aria === 'false') return false;
  const inner = el.querySelector && el.querySelector('input[type=checkbox], input[type=radio]');
  if (inner) return inner.checked;
  return null;
})
