(() => {
  const read = (type) => {
    return new Promise((resolve) => {
      const seen = [];
      let observer = null;
      try {
        observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) seen.push(entry);
        });
        const options = { type, buffered: true };
        if (type === "event") options.durationThreshold = 16;
        observer.observe(options);
      } catch (_) {
        resolve([]);
        return;
      }
      // Buffered entries arrive in the observer's first callback, queued as a task.
      setTimeout(() => {
        for (const entry of observer.takeRecords()) seen.push(entry);
        observer.disconnect();
        resolve(seen);
      }, 50);
    });
  };
  const describe = (node) => {
    if (!node || !node.tagName) return null;
    let text = node.tagName.toLowerCase();
    if (node.id) text += "#" + node.id;
    else if (node.classList && node.classList.length) text += "." + node.classList[0];
    return text;
  };
  const round = (n) => Math.round(n * 10) / 10;
  return Promise.all([read("paint"), read("largest-contentful-paint"), read("layout-shift"), read("event")])
    .then(([paints, lcps, shifts, events]) => {
      const nav = performance.getEntriesByType("navigation")[0];
      const ttfb = nav ? round(Math.max(0, nav.responseStart - nav.startTime)) : null;
      const fcpEntry = paints.find((p) => p.name === "first-contentful-paint");
      const fcp = fcpEntry ? round(fcpEntry.startTime) : null;
      const last = lcps.length ? lcps[lcps.length - 1] : null;
      const lcp = last
        ? { element: describe(last.element), size: last.size, startTime: round(last.startTime), url: last.url || null }
        : null;
      let best = 0;
      let window = 0;
      let windowStart = 0;
      let previous = 0;
      let bestEntries = [];
      let entries = [];
      for (const shift of shifts) {
        if (shift.hadRecentInput) continue;
        if (!entries.length || shift.startTime - previous > 1000 || shift.startTime - windowStart > 5000) {
          window = 0;
          windowStart = shift.startTime;
          entries = [];
        }
        window += shift.value;
        previous = shift.startTime;
        entries.push({ value: shift.value, startTime: round(shift.startTime) });
        if (window > best) {
          best = window;
          bestEntries = entries.slice();
        }
      }
      const byInteraction = new Map();
      for (const e of events) {
        if (!e.interactionId) continue;
        byInteraction.set(e.interactionId, Math.max(byInteraction.get(e.interactionId) || 0, e.duration));
      }
      const inp = byInteraction.size ? Math.max(...byInteraction.values()) : null;
      return {
        url: location.href,
        ttfb,
        fcp,
        lcp,
        cls: { score: Math.round(best * 10000) / 10000, entries: bestEntries },
        inp,
        hydration: null,
        phases: [],
        hydratedComponents: [],
      };
    });
})()
