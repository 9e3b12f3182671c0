(function () {
  // abx's React DevTools global hook, installed before the page's own scripts when the session
  // launches with `--enable react-devtools`. It implements the side of the hook contract React
  // itself calls (inject, onCommitFiberRoot, onCommitFiberUnmount, onPostCommitFiberRoot,
  // checkDCE, supportsFiber) and only records the committed fiber roots: `react tree|inspect|
  // renders|suspense` read fibers from there. It is not the DevTools backend: no operations
  // stream, no frontend bridge.
  if (window.__REACT_DEVTOOLS_GLOBAL_HOOK__) return;
  var renderers = new Map();
  var roots = new Map();
  var listeners = [];
  var nextId = 1;
  var hook = {
    supportsFiber: true,
    renderers: renderers,
    abx: { version: 1, suspendedOnce: new WeakSet(), commitListeners: listeners },
    inject: function (renderer) {
      var id = nextId++;
      renderers.set(id, renderer);
      roots.set(id, new Set());
      return id;
    },
    getFiberRoots: function (id) {
      if (!roots.has(id)) roots.set(id, new Set());
      return roots.get(id);
    },
    checkDCE: function () {},
    onScheduleFiberRoot: function () {},
    onCommitFiberUnmount: function () {},
    onPostCommitFiberRoot: function () {},
    onCommitFiberRoot: function (id, root) {
      var set = hook.getFiberRoots(id);
      var current = root && root.current;
      var mounted = current && (current.child || (current.memoizedState && current.memoizedState.element));
      if (mounted) set.add(root);
      else set.delete(root);
      // Remember every Suspense boundary seen showing its fallback (for `react suspense`).
      var stack = current ? [current] : [];
      while (stack.length) {
        var f = stack.pop();
        if (f.tag === 13 && f.memoizedState !== null && f.memoizedState !== undefined) {
          hook.abx.suspendedOnce.add(f);
          if (f.alternate) hook.abx.suspendedOnce.add(f.alternate);
        }
        if (f.sibling) stack.push(f.sibling);
        if (f.child) stack.push(f.child);
      }
      for (var i = 0; i < listeners.length; i++) {
        try { listeners[i](id, root); } catch (e) { /* a listener never breaks React's commit */ }
      }
    }
  };
  Object.defineProperty(window, '__REACT_DEVTOOLS_GLOBAL_HOOK__', {
    value: hook, configurable: true, enumerable: false, writable: false
  });
})()
