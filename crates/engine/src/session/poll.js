(async function(remain, predicate) {
  const end = Date.now() + remain;
  while (true) {
    let v;
    try { v = await predicate(); } catch (e) { v = undefined; }
    if (v) return v;
    if (Date.now() > end) return undefined;
    await new Promise((r) => setTimeout(r, 50));
  }
})
