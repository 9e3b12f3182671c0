(function (op, arg) {
  // `react tree|inspect|renders|suspense` on the page: reads the fibers of the roots React
  // committed to the DevTools global hook. Called as (this)(op, arg); returns the data or
  // {error: 'no_hook' | 'no_renderer' | 'not_found' | 'not_recording'}.
  var hook = window.__REACT_DEVTOOLS_GLOBAL_HOOK__;
  if (!hook) return { error: 'no_hook' };
  var state = hook.__abxQuery || (hook.__abxQuery = { ids: new WeakMap(), next: 1 });

  // Fiber tags (React's ReactWorkTags) that are components worth listing.
  var NAMES = { 3: 'Root', 13: 'Suspense', 19: 'SuspenseList', 7: 'Fragment', 12: 'Profiler' };
  var COMPONENT = { 0: 1, 1: 1, 2: 1, 3: 1, 11: 1, 13: 1, 14: 1, 15: 1, 19: 1 };
  var PERFORMED_WORK = 1;

  function idOf(fiber) {
    var id = state.ids.get(fiber) || (fiber.alternate && state.ids.get(fiber.alternate));
    if (!id) id = state.next++;
    state.ids.set(fiber, id);
    if (fiber.alternate) state.ids.set(fiber.alternate, id);
    return id;
  }
  function typeName(type) {
    if (!type) return null;
    if (typeof type === 'string') return type;
    if (type.displayName) return type.displayName;
    if (type.name) return type.name;
    if (type.render) return typeName(type.render);
    if (type.type) return typeName(type.type);
    return null;
  }
  function nameOf(fiber) {
    return NAMES[fiber.tag] || typeName(fiber.type) || 'Anonymous';
  }
  function allRoots() {
    var out = [];
    if (hook.renderers && hook.getFiberRoots) {
      hook.renderers.forEach(function (_, id) {
        hook.getFiberRoots(id).forEach(function (root) { out.push(root); });
      });
    }
    return out;
  }
  // Every listed fiber of the current trees, depth first, with its listed parent.
  function walk(visit) {
    allRoots().forEach(function (root) {
      var stack = [[root.current, 0, 0]];
      while (stack.length) {
        var item = stack.pop();
        var fiber = item[0], parent = item[1], depth = item[2];
        var listed = COMPONENT[fiber.tag] === 1;
        var id = parent, childDepth = depth;
        if (listed) {
          id = idOf(fiber);
          visit(fiber, id, parent, depth);
          childDepth = depth + 1;
        }
        var kids = [];
        for (var c = fiber.child; c; c = c.sibling) kids.push(c);
        for (var k = kids.length - 1; k >= 0; k--) stack.push([kids[k], id, childDepth]);
      }
    });
  }
  function preview(value, depth) {
    depth = depth || 0;
    if (value === null || value === undefined) return value === null ? null : '[undefined]';
    var t = typeof value;
    if (t === 'function') return '[function ' + (value.name || 'anonymous') + ']';
    if (t === 'symbol') return value.toString();
    if (t === 'bigint') return value.toString() + 'n';
    if (t !== 'object') return value;
    if (value.$$typeof) return '<' + (typeName(value.type) || 'element') + ' />';
    if (value instanceof Element) return '<' + value.tagName.toLowerCase() + '>';
    if (depth >= 3) return Array.isArray(value) ? '[array(' + value.length + ')]' : '[object]';
    if (Array.isArray(value)) return value.slice(0, 20).map(function (v) { return preview(v, depth + 1); });
    var out = {};
    Object.keys(value).slice(0, 30).forEach(function (k) { out[k] = preview(value[k], depth + 1); });
    return out;
  }
  function props(fiber) {
    var p = fiber.memoizedProps;
    if (!p || typeof p !== 'object') return {};
    var out = {};
    Object.keys(p).forEach(function (k) { if (k !== 'children') out[k] = preview(p[k]); });
    return out;
  }
  function hooks(fiber) {
    if ([0, 2, 11, 14, 15].indexOf(fiber.tag) < 0) return [];
    var out = [];
    for (var h = fiber.memoizedState, i = 0; h && typeof h === 'object' && 'memoizedState' in h && i < 100; h = h.next, i++) {
      var v = h.memoizedState;
      var kind = 'state';
      if (v && typeof v === 'object' && 'create' in v && 'deps' in v) kind = 'effect';
      else if (v && typeof v === 'object' && Object.keys(v).length === 1 && 'current' in v) kind = 'ref';
      else if (!h.queue) kind = 'memo';
      out.push({ index: i, kind: kind, value: kind === 'effect' ? { deps: preview(v.deps) } : preview(v) });
    }
    return out;
  }
  function roots() {
    var r = allRoots();
    if (!r.length) return null;
    return r;
  }

  if (op === 'renders_start') {
    var listeners = hook.abx && hook.abx.commitListeners;
    if (!listeners) return { error: 'no_hook' };
    var rec = {
      started: performance.now(), frames: 0, seen: new WeakSet(), components: {}, commits: 0,
      stopped: false
    };
    if (state.recording) state.recording.stopped = true;
    state.recording = rec;
    var tick = function () { if (!rec.stopped) { rec.frames++; requestAnimationFrame(tick); } };
    requestAnimationFrame(tick);
    var mark = function () {
      // Only the previous commit's fibers: React swaps each fiber with its alternate, so an
      // object seen two commits ago may be the freshly rendered one now.
      rec.seen = new WeakSet();
      walk(function (f) { rec.seen.add(f); });
    };
    mark();
    rec.listener = function () {
      rec.commits++;
      walk(function (fiber, id) {
        if (rec.seen.has(fiber)) return;
        var mount = !fiber.alternate;
        if (!mount && !(fiber.flags & PERFORMED_WORK)) return;
        var name = nameOf(fiber);
        var c = rec.components[name] || (rec.components[name] = {
          name: name, count: 0, mounts: 0, reRenders: 0, instances: {}, changes: [], changeSummary: {}
        });
        c.count++;
        c.instances[id] = 1;
        var changes = [];
        if (mount) {
          c.mounts++;
          changes.push({ type: 'mount', name: null, prev: null, next: null });
        } else {
          c.reRenders++;
          var prev = fiber.alternate.memoizedProps || {}, next = fiber.memoizedProps || {};
          Object.keys(Object.assign({}, prev, next)).forEach(function (k) {
            if (k !== 'children' && prev[k] !== next[k]) {
              changes.push({ type: 'props', name: k, prev: JSON.stringify(preview(prev[k])), next: JSON.stringify(preview(next[k])) });
            }
          });
          var ph = hooks(fiber.alternate), nh = hooks(fiber);
          nh.forEach(function (h, i) {
            var a = ph[i] ? JSON.stringify(ph[i].value) : undefined, b = JSON.stringify(h.value);
            if (h.kind === 'state' && a !== b) changes.push({ type: 'state', name: 'hook ' + i, prev: a, next: b });
          });
          if (fiber.tag === 1 && fiber.alternate.memoizedState !== fiber.memoizedState) {
            changes.push({ type: 'state', name: null, prev: JSON.stringify(preview(fiber.alternate.memoizedState)), next: JSON.stringify(preview(fiber.memoizedState)) });
          }
          if (!changes.length) changes.push({ type: 'parent', name: null, prev: null, next: null });
        }
        changes.forEach(function (ch) {
          var key = ch.name ? ch.type + '.' + ch.name : ch.type;
          c.changeSummary[key] = (c.changeSummary[key] || 0) + 1;
          if (c.changes.length < 20) c.changes.push(ch);
        });
      });
      mark();
    };
    listeners.push(rec.listener);
    return { recording: true };
  }
  if (op === 'renders_stop') {
    var r = state.recording;
    if (!r) return { error: 'not_recording' };
    r.stopped = true;
    state.recording = null;
    var list = hook.abx.commitListeners;
    var at = list.indexOf(r.listener);
    if (at >= 0) list.splice(at, 1);
    var elapsed = Math.round(performance.now() - r.started) / 1000;
    var components = Object.keys(r.components).map(function (k) {
      var c = r.components[k];
      return {
        name: c.name, count: c.count, mounts: c.mounts, reRenders: c.reRenders,
        instanceCount: Object.keys(c.instances).length, changes: c.changes, changeSummary: c.changeSummary
      };
    }).sort(function (a, b) { return b.count - a.count || (a.name < b.name ? -1 : 1); });
    var sum = function (key) { return components.reduce(function (n, c) { return n + c[key]; }, 0); };
    return {
      elapsed: elapsed,
      commits: r.commits,
      fps: elapsed > 0 ? Math.round(r.frames / elapsed) : 0,
      totalRenders: sum('count'),
      totalMounts: sum('mounts'),
      totalReRenders: sum('reRenders'),
      totalComponents: components.length,
      components: components
    };
  }

  if (!roots()) return { error: 'no_renderer' };

  if (op === 'tree') {
    var nodes = [];
    walk(function (fiber, id, parent, depth) {
      nodes.push({ id: id, parent: parent, depth: depth, tag: fiber.tag, name: nameOf(fiber), key: fiber.key === null || fiber.key === undefined ? null : String(fiber.key) });
    });
    return { nodes: nodes };
  }
  if (op === 'inspect') {
    var found = null, parentName = null;
    var names = {};
    walk(function (fiber, id, parent) {
      names[id] = nameOf(fiber);
      if (id === arg) { found = fiber; parentName = parent ? names[parent] : null; }
    });
    if (!found) return { error: 'not_found' };
    var src = found._debugSource;
    return {
      id: arg,
      name: nameOf(found),
      tag: found.tag,
      key: found.key === null || found.key === undefined ? null : String(found.key),
      parent: parentName,
      props: props(found),
      state: found.tag === 1 ? preview(found.memoizedState) : null,
      hooks: hooks(found),
      source: src ? { fileName: src.fileName, lineNumber: src.lineNumber, columnNumber: src.columnNumber } : null
    };
  }
  if (op === 'suspense') {
    var boundaries = [];
    var byId = {};
    walk(function (fiber, id, parent) {
      byId[id] = nameOf(fiber);
      if (fiber.tag !== 13) return;
      var suspended = fiber.memoizedState !== null && fiber.memoizedState !== undefined;
      var seenSet = hook.abx && hook.abx.suspendedOnce;
      var once = !!seenSet && (seenSet.has(fiber) || (!!fiber.alternate && seenSet.has(fiber.alternate)));
      var children = [];
      var content = fiber.child;
      var stack = content ? [content] : [];
      while (stack.length && children.length < 10) {
        var f = stack.pop();
        if (f.sibling) stack.push(f.sibling);
        if (COMPONENT[f.tag] === 1 && f.tag !== 13) children.push(nameOf(f));
        else if (f.child) stack.push(f.child);
      }
      boundaries.push({
        id: id,
        parent: parent ? byId[parent] : null,
        key: fiber.key === null || fiber.key === undefined ? null : String(fiber.key),
        suspended: suspended,
        dynamic: suspended || !!once,
        children: suspended ? [] : children
      });
    });
    return { boundaries: boundaries };
  }
  return { error: 'unknown_op' };
})
