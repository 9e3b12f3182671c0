(async function(selector, opts, thenArgs) {
  // The element by selector in this document, then the actionability checks on it: one call
  // where a handle would need two. Its text never changes (the selector is an argument), so V8
  // compiles it once per page. With `thenArgs`, a ready element also gets the action that
  // follows the checks (`fill` clears it), in the same task: nothing runs in between.
  const el = typeof selector.xpath === 'string'
    ? document.evaluate(selector.xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue
    : document.querySelector(selector.css);
  if (!el) return {state: 'missing'};
  const ready = await (__ABX_FUNCTION__).call(el, opts);
  if (!thenArgs || !ready || ready.state !== 'ready') return ready;
  ready.then = await (__ABX_THEN__).apply(el, thenArgs);
  return ready;
})
