(function(mode) {
  // Runs in the snapshot's isolated world (the page cannot see or replace it). `arm` starts a new
  // watch just before a full snapshot reads the page; `check` says whether anything that can
  // change the snapshot happened since. Answers: 1 unchanged (check) / watching (arm), 0 changed
  // (check) / cannot vouch for this page (arm).
  const g = globalThis;
  const POLL_MS = 50;
  let w = g.__abxSnapshotWatch;
  if (!w) {
    w = { dirty: true, pushed: true, timer: 0, supported: false, controls: [], kinds: [], values: [], sheets: [], roots: [], rootSheets: [] };
    // The first change after an arm is also told to the session at once, through the binding
    // the session exposes in this world only (`Runtime.bindingCalled`): while it has heard
    // nothing, the session can answer a snapshot without asking.
    w.push = () => {
      if (w.pushed) return;
      w.pushed = true;
      const tell = g.__abxSnapshotChanged;
      if (typeof tell === 'function') { try { tell(''); } catch (e) { /* binding gone */ } }
    };
    const mark = () => { w.dirty = true; w.push(); };
    // Our own cursor-scan tags come and go during every snapshot: they are not page changes.
    w.pageChanged = (records) => records.some((r) => r.type !== 'attributes' || r.attributeName !== 'data-__ab-ci');
    w.observer = new MutationObserver((records) => { if (w.pageChanged(records)) mark(); });
    // Changes without a DOM mutation: user input and focus (form values, :hover/:focus styles),
    // resources arriving (image sizes), CSS animations and transitions, popovers and <details>,
    // fragment and History API moves (:target), viewport changes (media queries).
    const events = ['input', 'change', 'focusin', 'focusout', 'mouseover', 'mouseout', 'pointerdown',
      'pointerup', 'keydown', 'keyup', 'toggle', 'load', 'error', 'transitionstart', 'transitionend',
      'transitioncancel', 'animationstart', 'animationend', 'animationcancel', 'resize', 'hashchange',
      'popstate', 'fullscreenchange'];
    for (const type of events) g.addEventListener(type, mark, true);
    if (g.matchMedia) {
      for (const query of ['(prefers-color-scheme: dark)', 'print', '(prefers-reduced-motion: reduce)']) {
        const list = g.matchMedia(query);
        if (list && list.addEventListener) list.addEventListener('change', mark);
      }
    }
    g.__abxSnapshotWatch = w;
  }
  const options = { subtree: true, childList: true, attributes: true, characterData: true };
  // Property state that changes without a mutation or an event when a script sets it, read per
  // kind of control so a check reads only what can change that way: a checkbox's or radio's
  // `checked`/`indeterminate` (its `value` is an attribute, a mutation), a text-like control's
  // `value`, a select's selection. Compared entry by entry: no string is built on a check.
  // (A control that leaves the document is a mutation: no `isConnected` read.)
  const stateOf = (el, kind) => {
    if (kind === 1) return (el.checked ? 1 : 0) + (el.indeterminate ? 2 : 0);
    if (kind === 2) return el.value;
    let picked = el.selectedIndex + ':';
    if (el.multiple) for (const option of el.selectedOptions) picked += option.index + ',';
    return picked;
  };
  const valuesOf = () => {
    const out = new Array(w.controls.length);
    for (let i = 0; i < w.controls.length; i++) out[i] = stateOf(w.controls[i], w.kinds[i]);
    return out;
  };
  const sameValues = () => {
    const before = w.values;
    for (let i = 0; i < w.controls.length; i++) {
      if (stateOf(w.controls[i], w.kinds[i]) !== before[i]) return false;
    }
    return true;
  };
  // 1: checkable, 2: a value the user types or picks, 3: a select; 0: nothing to read (its state
  // lives in attributes, or changes only with an event).
  const kindOf = (el) => {
    const name = el.localName;
    if (name === 'textarea') return 2;
    if (name === 'select') return 3;
    const type = el.type;
    if (type === 'checkbox' || type === 'radio') return 1;
    if (type === 'hidden' || type === 'submit' || type === 'reset' || type === 'button'
      || type === 'image' || type === 'file') return 0;
    return 2;
  };
  // The style sheets of the document and of every watched shadow root, adopted ones included,
  // as a flat list compared entry by entry: each sheet, its rule count, its first and last rule
  // (`replaceSync`/`replace` make new rule objects; `insertRule`/`deleteRule` change the count)
  // and whether it is disabled. A cross-origin sheet's rules cannot be read: its count is -1.
  // A shadow root's own sheets are the ones `arm` found (a `<style>` added or removed later is a
  // mutation); its adopted sheets are read again each time (assigning them is not).
  const sheetsOf = () => {
    const out = [];
    const add = (sheet) => {
      let rules = null;
      try { rules = sheet.cssRules; } catch (e) { /* cross-origin sheet */ }
      const count = rules ? rules.length : -1;
      out.push(sheet, count, count > 0 ? rules[0] : null, count > 0 ? rules[count - 1] : null, sheet.disabled);
    };
    const sheets = document.styleSheets;
    out.push(sheets.length);
    for (let i = 0; i < sheets.length; i++) add(sheets[i]);
    for (let i = 0; i < w.rootSheets.length; i++) add(w.rootSheets[i]);
    const adopting = [document].concat(w.roots);
    for (let i = 0; i < adopting.length; i++) {
      const adopted = adopting[i].adoptedStyleSheets;
      const n = adopted ? adopted.length : 0;
      out.push(n);
      for (let k = 0; k < n; k++) add(adopted[k]);
    }
    return out;
  };
  const sameSheets = () => {
    const now = sheetsOf();
    const before = w.sheets;
    if (now.length !== before.length) return false;
    for (let i = 0; i < now.length; i++) if (now[i] !== before[i]) return false;
    return true;
  };
  const changed = () => {
    if (w.pageChanged(w.observer.takeRecords())) w.dirty = true;
    if (!w.dirty && (!sameValues() || !sameSheets())) w.dirty = true;
    if (w.dirty) w.push();
    return w.dirty;
  };
  if (mode === 'check') {
    if (!w.supported) return 0;
    return changed() ? 0 : 1;
  }
  // arm: watch the document and every open shadow root; collect form controls.
  w.observer.disconnect();
  w.observer.observe(document, options);
  const controls = [];
  const kinds = [];
  const roots = [];
  const rootSheets = [];
  let supported = true;
  const visit = (root) => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i];
      const name = el.localName;
      if (name === 'input' || name === 'textarea' || name === 'select') {
        const kind = kindOf(el);
        if (kind) { controls.push(el); kinds.push(kind); }
      }
      if (el.shadowRoot) {
        w.observer.observe(el.shadowRoot, options);
        roots.push(el.shadowRoot);
        const own = el.shadowRoot.styleSheets;
        for (let k = 0; k < own.length; k++) rootSheets.push(own[k]);
        visit(el.shadowRoot);
      } else if (name.indexOf('-') > 0) {
        // A custom element may keep a closed shadow tree this world cannot observe, or be
        // upgraded later and attach one: the page is then snapshotted in full every time.
        supported = false;
      }
    }
  };
  visit(document);
  w.controls = controls;
  w.kinds = kinds;
  w.roots = roots;
  w.rootSheets = rootSheets;
  w.supported = supported;
  w.values = valuesOf();
  w.sheets = sheetsOf();
  w.dirty = false;
  w.pushed = false;
  // What changes without a mutation or an event (a value or a style rule set by a page script)
  // is looked for every POLL_MS as well, so the session hears of it within that time.
  if (w.timer) clearTimeout(w.timer);
  w.timer = 0;
  const poll = () => {
    w.timer = 0;
    if (w.dirty || !w.supported) return;
    if (!changed()) w.timer = setTimeout(poll, POLL_MS);
  };
  if (supported) w.timer = setTimeout(poll, POLL_MS);
  return supported ? 1 : 0;
})
