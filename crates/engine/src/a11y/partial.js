(async (context, options, checkSelector) => {
  // Runs axe-core's partial audit of one frame in the audit's isolated world (installed by
  // a11y.rs) and lists the child frames axe wants audited next. `context` is null for the whole
  // top document, a CSS selector for `--selector`, or a frame context axe handed the parent.
  const axe = window.axe;
  if (!axe || typeof axe.runPartial !== 'function' || !axe.utils
      || typeof axe.utils.getFrameContexts !== 'function') {
    return JSON.stringify({ error: 'axe-core did not initialise in this frame' });
  }
  if (checkSelector && typeof context === 'string') {
    let match;
    try {
      match = document.querySelector(context);
    } catch (_) {
      return JSON.stringify({ error: 'Invalid selector: ' + context });
    }
    if (!match) return JSON.stringify({ error: 'No element matches selector: ' + context });
  }
  const target = context === null ? document : context;
  const partial = await axe.runPartial(target, options);
  const frames = axe.utils.getFrameContexts(target, options);
  return JSON.stringify({ partial, frames });
})
