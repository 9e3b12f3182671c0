(function() {
  const read = (store) => {
    const entries = [];
    try {
      for (let i = 0; i < store.length; i++) {
        const name = store.key(i);
        entries.push({ name, value: store.getItem(name) });
      }
    } catch (e) {}
    return entries;
  };
  let local = [];
  let session = [];
  try { local = read(localStorage); } catch (e) {}
  try { session = read(sessionStorage); } catch (e) {}
  return { origin: location.origin, localStorage: local, sessionStorage: session };
})
