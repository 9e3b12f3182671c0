(function(expression) {
  const r = document.evaluate(expression, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  const out = [];
  for (let i = 0; i < r.snapshotLength; i++) out.push(r.snapshotItem(i));
  return out;
})
