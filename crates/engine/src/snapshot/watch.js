(function(mode) {
  // Runs in the snapshot's isolated world (the page cannot see or replace it). `arm` starts a new
  // watch just before a full snapshot reads the page; `check` says whether anything that can
  // change the snapshot happened since. Answers: 1 unchanged (check) / watching (arm), 0 changed
  // (check) / cannot vouch for this page (arm).
  const g = globalThis;
  let w = g.__abxSnapshotWatch;
  if (!w) {
    w = { dirty: true, supported: false, controls: [], values: '', sheets: '' };
    const mark = () => { w.dirty = true; };
    // Our own cursor-scan tags come and go during every snapshot: they are not page changes.
    w.observer = new MutationObserver((records) => {
      for (const r of records) {
        if (r.type !== 'attributes' || r.attributeName !== 'data-__ab-ci') { w.dirty = true; return; }
      }
    });
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
  // Property state that changes without a mutation or an event when a script sets it: four
  // entries per control, compared one by one (no string built on a check).
  const stateOf = (el, out) => {
    if (!el.isConnected) { out.push(null, null, null, null); return; }
    out.push(el.value, (el.checked ? 1 : 0) + (el.indeterminate ? 2 : 0),
      el.selectedIndex === undefined ? -2 : el.selectedIndex,
      el.selectedOptions === undefined ? -1 : el.selectedOptions.length);
  };
  const valuesOf = () => {
    const out = [];
    for (const el of w.controls) stateOf(el, out);
    return out;
  };
  const sameValues = () => {
    const before = w.values;
    const now = [];
    for (let i = 0; i < w.controls.length; i++) {
      now.length = 0;
      stateOf(w.controls[i], now);
      for (let k = 0; k < 4; k++) if (now[k] !== before[i * 4 + k]) return false;
    }
    return true;
  };
  const sheetsOf = () => {
    const d = document;
    let s = d.styleSheets.length + ':' + (d.adoptedStyleSheets ? d.adoptedStyleSheets.length : 0);
    for (const sheet of d.styleSheets) {
      let rules = '?';
      try { rules = sheet.cssRules.length; } catch (e) { /* cross-origin sheet */ }
      s += ',' + rules + (sheet.disabled ? 'd' : '');
    }
    return s;
  };
  if (mode === 'check') {
    if (w.observer.takeRecords().some((r) => r.type !== 'attributes' || r.attributeName !== 'data-__ab-ci')) w.dirty = true;
    if (w.dirty || !w.supported) return 0;
    if (!sameValues() || sheetsOf() !== w.sheets) { w.dirty = true; return 0; }
    return 1;
  }
  // arm: watch the document and every open shadow root; collect form controls.
  w.observer.disconnect();
  w.observer.observe(document, options);
  const controls = [];
  let supported = true;
  const visit = (root) => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i];
      const name = el.localName;
      if (name === 'input' || name === 'textarea' || name === 'select') controls.push(el);
      if (el.shadowRoot) {
        w.observer.observe(el.shadowRoot, options);
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
  w.supported = supported;
  w.values = valuesOf();
  w.sheets = sheetsOf();
  w.dirty = false;
  return supported ? 1 : 0;
})
