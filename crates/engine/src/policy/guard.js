(function(patterns) {
  const g = globalThis;
  if (g.__abxGuarded) return;
  Object.defineProperty(g, '__abxGuarded', { value: true });
  const allowed = (raw) => {
    let u;
    try { u = new URL(String(raw), g.location ? g.location.href : undefined); } catch (e) { return false; }
    if (!['ws:', 'wss:', 'http:', 'https:'].includes(u.protocol)) return true;
    const host = u.hostname.toLowerCase().replace(/\.$/, '');
    return patterns.some((p) => p.startsWith('*.') ? (host === p.slice(2) || host.endsWith(p.slice(1))) : host === p);
  };
  const refuse = (what) => {
    throw new DOMException(what + ' is blocked: the host is not in the allowed domains list', 'SecurityError');
  };
  const NativeWebSocket = g.WebSocket;
  if (typeof NativeWebSocket === 'function') {
    const WebSocket = function WebSocket(url, protocols) {
      if (!allowed(url)) refuse('WebSocket');
      return protocols === undefined ? new NativeWebSocket(url) : new NativeWebSocket(url, protocols);
    };
    WebSocket.prototype = NativeWebSocket.prototype;
    for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) {
      Object.defineProperty(WebSocket, k, { value: NativeWebSocket[k] });
    }
    Object.defineProperty(g, 'WebSocket', { value: WebSocket, writable: false, configurable: false });
  }
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection']) {
    if (name in g) {
      const Blocked = function RTCPeerConnection() { refuse('WebRTC'); };
      Object.defineProperty(g, name, { value: Blocked, writable: false, configurable: false });
    }
  }
})
