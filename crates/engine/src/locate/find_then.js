(async function(selector, args) {
  // The element by selector in this document and a read on it: one call where a handle would
  // need two (find, then call) and a release. `missing` sends the caller to the handle path,
  // which reports the miss as it always has.
  const el = typeof selector.xpath === 'string'
    ? document.evaluate(selector.xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue
    : document.querySelector(selector.css);
  if (!el) return {missing: true};
  return {found: true, value: await (__ABX_FUNCTION__).apply(el, args)};
})
