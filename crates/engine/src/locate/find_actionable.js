(async function(selector, opts) {
  // The element by selector in this document, then the actionability checks on it: one call
  // where a handle would need two. Its text never changes (the selector is an argument), so V8
  // compiles it once per page.
  const el = typeof selector.xpath === 'string'
    ? document.evaluate(selector.xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue
    : document.querySelector(selector.css);
  if (!el) return {state: 'missing'};
  return await (__ABX_FUNCTION__).call(el, opts);
})
