(async function(opts) {
  // The click guard: between this hit test and the mouse events a script may move the element
  // (a banner appears, a button unhides). The guard sees the pointer events the click causes in
  // this window first; if the press or release lands outside the element it blocks that event
  // and the rest of the click, and records where it landed, so the click can be retried instead
  // of acting on another element. It disarms itself right after the last release (the click
  // and dblclick events come in the same task) or after two seconds if no click arrives.
  const armGuard = (target, view, presses, describe) => {
    const key = Symbol.for('abx.clickGuard');
    if (view[key]) view[key].disarm();
    const judged = ['pointerdown', 'mousedown', 'pointerup', 'mouseup'];
    const types = judged.concat(['click', 'dblclick', 'auxclick', 'contextmenu']);
    const guard = {miss: null, armed: true, releases: 0};
    const reaches = (path) => path.includes(target) ||
      path.some((n) => n.localName === 'label' && n.control === target);
    const listener = (e) => {
      if (!e.isTrusted || !guard.armed) return;
      const path = e.composedPath();
      if (!guard.miss && judged.includes(e.type) && !reaches(path)) guard.miss = describe(path[0]);
      if (guard.miss) { e.preventDefault(); e.stopImmediatePropagation(); }
      if (e.type === 'mouseup' && ++guard.releases >= presses) setTimeout(guard.disarm, 0);
    };
    guard.disarm = () => {
      if (!guard.armed) return;
      guard.armed = false;
      clearTimeout(guard.timer);
      for (const t of types) view.removeEventListener(t, listener, true);
    };
    for (const t of types) view.addEventListener(t, listener, true);
    guard.timer = setTimeout(guard.disarm, 2000);
    view[key] = guard;
  };
  const el = this;
  const started = Date.now();
  const frame = () => new Promise((resolve) => {
    let done = false;
    const finish = () => { if (!done) { done = true; resolve(); } };
    requestAnimationFrame(finish);
    setTimeout(finish, 50);
  });
  const describe = (n) => {
    if (!n || n.nodeType !== 1) return String((n && n.nodeName) || 'unknown').toLowerCase();
    let s = n.localName;
    if (n.id) s += '#' + n.id;
    else if (n.classList && n.classList.length) s += '.' + Array.from(n.classList).slice(0, 2).join('.');
    return s;
  };
  while (true) {
    if (!el.isConnected) return {state: 'detached'};
    const target = el.nodeType === 1 ? el : el.parentElement;
    if (!target) return {state: 'detached'};
    if (opts.option && target.localName === 'option') {
      const select = target.closest('select');
      if (select && !select.disabled && !target.disabled) {
        if (!select.multiple) for (const o of select.options) o.selected = false;
        target.selected = true;
        select.dispatchEvent(new Event('input', {bubbles: true}));
        select.dispatchEvent(new Event('change', {bubbles: true}));
        return {state: 'selected'};
      }
    }
    const doc = target.ownerDocument;
    const view = doc.defaultView;
    const style = view.getComputedStyle(target);
    let rect = target.getBoundingClientRect();
    let reason = '';
    if (opts.visible && (style.visibility !== 'visible' || rect.width <= 0 || rect.height <= 0)) {
      reason = 'not visible';
    } else if (opts.enabled && (target.matches(':disabled') || target.closest('[aria-disabled="true"]'))) {
      reason = 'disabled';
    } else if (opts.editable) {
      const tag = target.localName;
      const textual = tag === 'textarea' || target.isContentEditable ||
        (tag === 'input' && !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(target.type));
      if (!textual && tag !== 'select') return {state: 'waiting', reason: 'not an <input>, <textarea> or [contenteditable] element'};
      if (target.readOnly) reason = 'read-only';
    }
    if (!reason) {
      if (opts.scroll) {
        const vw = view.innerWidth, vh = view.innerHeight;
        if (rect.top < 0 || rect.left < 0 || rect.bottom > vh || rect.right > vw) {
          if (target.scrollIntoViewIfNeeded) target.scrollIntoViewIfNeeded(true);
          else target.scrollIntoView({block: 'center', inline: 'center'});
          rect = target.getBoundingClientRect();
        }
      }
      // Stable: same box on two consecutive frames. Only worth a frame's wait while something
      // animates; a page with no running animation cannot move the element between frames
      // except from script, which the hit test below still catches.
      if (opts.stable && doc.getAnimations && doc.getAnimations().some((a) => a.playState === 'running')) {
        await frame();
        const again = target.getBoundingClientRect();
        if (again.x !== rect.x || again.y !== rect.y || again.width !== rect.width || again.height !== rect.height) {
          reason = 'not stable';
        }
        rect = again;
      }
    }
    if (!reason) {
      const vw = view.innerWidth, vh = view.innerHeight;
      // An inline element that wraps (a long link in a narrow column) has a box per line, and
      // the middle of their bounding box can fall between the lines, on its parent: aim at the
      // first line box that shows in the viewport instead.
      const lines = target.getClientRects();
      let box = rect;
      if (lines.length > 1) {
        for (const line of lines) {
          if (line.width > 0 && line.height > 0 && line.right > 0 && line.bottom > 0 && line.left < vw && line.top < vh) {
            box = line;
            break;
          }
        }
      }
      const left = Math.max(box.left, 0), right = Math.min(box.right, vw);
      const top = Math.max(box.top, 0), bottom = Math.min(box.bottom, vh);
      const x = right > left ? (left + right) / 2 : box.left + box.width / 2;
      const y = bottom > top ? (top + bottom) / 2 : box.top + box.height / 2;
      if (opts.hit) {
        let hit = doc.elementFromPoint(x, y);
        while (hit && hit.shadowRoot) {
          const inner = hit.shadowRoot.elementFromPoint(x, y);
          if (!inner || inner === hit) break;
          hit = inner;
        }
        let ok = !hit;
        // Up the flat tree: a light-DOM child shown through a slot (a label inside a shadow
        // <button>) belongs to the slot's element, not only to its light-DOM parent.
        for (let n = hit; n && !ok; n = n.assignedSlot || n.parentNode || n.host) if (n === target) ok = true;
        const label = hit && hit.closest && hit.closest('label');
        if (!ok && label && label.control === target) ok = true;
        if (!ok) return {state: 'covered', cover: describe(hit), x, y};
      }
      if (opts.guard > 0) armGuard(target, view, opts.guard, describe);
      return {state: 'ready', x, y};
    }
    if (Date.now() - started >= opts.slice) return {state: 'waiting', reason};
    await frame();
  }
})
