(function(local, session) {
  let written = 0;
  for (const entry of local) { localStorage.setItem(entry.name, entry.value); written++; }
  for (const entry of session) { sessionStorage.setItem(entry.name, entry.value); written++; }
  return written;
})
