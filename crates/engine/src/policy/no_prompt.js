(() => {
  const g = globalThis;
  if (g.__abxNoPrompts || !g.navigator || !g.navigator.geolocation) return;
  Object.defineProperty(g, '__abxNoPrompts', { value: true });
  const geolocation = g.navigator.geolocation;
  const denied = () => {
    const proto = g.GeolocationPositionError ? g.GeolocationPositionError.prototype : Object.prototype;
    return Object.create(proto, {
      code: { value: 1 },
      message: { value: 'User denied Geolocation' },
    });
  };
  const refuse = (error) => { if (typeof error === 'function') setTimeout(() => error(denied()), 0); };
  Object.defineProperty(geolocation, 'getCurrentPosition', {
    value: function getCurrentPosition(success, error) { refuse(error); },
  });
  Object.defineProperty(geolocation, 'watchPosition', {
    value: function watchPosition(success, error) { refuse(error); return 0; },
  });
})()
