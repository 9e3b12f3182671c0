(function(values) {
  const el = this;
  if (el.localName !== 'select') return {error: 'Element is not a <select> element'};
  const options = Array.from(el.options);
  const wanted = (o) => values.includes(o.value) || values.includes(o.textContent.trim()) || values.includes(o.label);
  const matches = options.filter(wanted);
  if (matches.length === 0) {
    const available = options.map((o) => o.value + ' ("' + o.textContent.trim() + '")').join(', ');
    return {error: 'No option matched ' + JSON.stringify(values) + '. Available options: ' + available};
  }
  const chosen = el.multiple ? matches : [matches[0]];
  for (const o of options) o.selected = chosen.includes(o);
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: chosen.map((o) => o.value)};
})
