(function(area, op, key, value) {
  const store = area === 'session' ? sessionStorage : localStorage;
  if (op === 'get') return store.getItem(key);
  if (op === 'all') return Object.fromEntries(Object.keys(store).map((k) => [k, store.getItem(k)]));
  if (op === 'set') store.setItem(key, value);
  if (op === 'clear') store.clear();
  return true;
})
