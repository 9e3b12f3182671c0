(function(patterns, blocked) {
  const g = globalThis;
  if (g.__abxGuarded) return;
  Object.defineProperty(g, '__abxGuarded', { value: true });
  // Why a URL may not be reached: null when it may.
  const refusal = (raw) => {
    let u;
    try { u = new URL(String(raw), g.location ? g.location.href : undefined); } catch (e) { return 'the URL is invalid'; }
    if (!['ws:', 'wss:', 'http:', 'https:'].includes(u.protocol)) return null;
    const host = u.hostname.toLowerCase().replace(/\.$/, '');
    if ((blocked || []).some((b) => host === b || host.endsWith('.' + b))) return 'the site is blocked by the Host\'s policy';
    if (!patterns) return null;
    const listed = patterns.some((p) => p.startsWith('*.') ? (host === p.slice(2) || host.endsWith(p.slice(1))) : host === p);
    return listed ? null : 'the host is not in the allowed domains list';
  };
  const refuse = (what, why) => {
    throw new DOMException(what + ' is blocked: ' + (why || 'the host is not in the allowed domains list'), 'SecurityError');
  };
  const NativeWebSocket = g.WebSocket;
  if (typeof NativeWebSocket === 'function') {
    const WebSocket = function WebSocket(url, protocols) {
      const why = refusal(url);
      if (why) refuse('WebSocket', why);
      return protocols === undefined ? new NativeWebSocket(url) : new NativeWebSocket(url, protocols);
    };
    WebSocket.prototype = NativeWebSocket.prototype;
    for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) {
      Object.defineProperty(WebSocket, k, { value: NativeWebSocket[k] });
    }
    Object.defineProperty(g, 'WebSocket', { value: WebSocket, writable: false, configurable: false });
  }
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection']) {
    if (patterns && name in g) {
      const Blocked = function RTCPeerConnection() { refuse('WebRTC'); };
      Object.defineProperty(g, name, { value: Blocked, writable: false, configurable: false });
    }
  }
})
