// The abx dashboard page: one live view per session of the socket dir, all live at once.
// Plain script, no build step. It speaks only to the dashboard's own origin; the dashboard
// relays each view to its session's stream server. One expression, like every script under
// crates/ (scripts/check-js.sh).
(function () {
  'use strict';
  const query = new URLSearchParams(location.search);
  // A token given in the address is kept for this tab only and removed from the address bar.
  if (query.has('token')) {
    sessionStorage.setItem('abx-dashboard-token', query.get('token') || '');
    query.delete('token');
    const rest = query.toString();
    history.replaceState(null, '', location.pathname + (rest ? '?' + rest : ''));
  }
  // A private access URL of a reverse-proxied dashboard carries its token in the fragment,
  // which never reaches the proxy's logs; it is kept the same way.
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.has('dashboard-access-token')) {
    sessionStorage.setItem('abx-dashboard-token', fragment.get('dashboard-access-token') || '');
    history.replaceState(null, '', location.pathname + location.search);
  }
  const token = sessionStorage.getItem('abx-dashboard-token') || '';
  const watchOnly = query.get('mode') === 'watch';
  const views = new Map();
  const list = document.getElementById('sessions');
  const summary = document.getElementById('summary');
  const notice = document.getElementById('notice');
  const fpsSelect = document.getElementById('fps');

  // Legacy virtual key codes (Chrome ignores editing keys without one).
  const KEY_CODES = {
    Backspace: 8, Tab: 9, Enter: 13, Shift: 16, Control: 17, Alt: 18, Pause: 19, CapsLock: 20,
    Escape: 27, ' ': 32, PageUp: 33, PageDown: 34, End: 35, Home: 36, ArrowLeft: 37,
    ArrowUp: 38, ArrowRight: 39, ArrowDown: 40, Insert: 45, Delete: 46, Meta: 91,
    F1: 112, F2: 113, F3: 114, F4: 115, F5: 116, F6: 117, F7: 118, F8: 119, F9: 120,
    F10: 121, F11: 122, F12: 123,
  };

  function keyCode(key, legacy) {
    if (legacy) return legacy;
    if (KEY_CODES[key] !== undefined) return KEY_CODES[key];
    if (key.length === 1) {
      const upper = key.toUpperCase();
      if (/[A-Z0-9]/.test(upper)) return upper.charCodeAt(0);
    }
    return 0;
  }

  function modifiers(e) {
    return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  }

  function streamUrl(name, fps) {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const params = new URLSearchParams();
    if (token) params.set('token', token);
    if (watchOnly) params.set('mode', 'watch');
    if (fps > 0) params.set('maxFps', String(fps));
    return scheme + '//' + location.host + '/api/sessions/' + encodeURIComponent(name) +
      '/stream?' + params.toString();
  }

  class View {
    constructor(name) {
      this.name = name;
      this.card = document.getElementById('card').content.firstElementChild.cloneNode(true);
      this.card.dataset.session = name;
      this.q = (sel) => this.card.querySelector(sel);
      this.q('.name').textContent = name;
      this.img = this.q('.frame');
      this.keys = this.q('.keys');
      this.meta = null;
      this.control = false;
      this.frameTs = 0;
      this.frames = 0;
      this.pendingMove = null;
      this.wire();
      this.connect();
    }

    connect() {
      this.closed = false;
      this.ws = new WebSocket(streamUrl(this.name, Number(fpsSelect.value)));
      this.ws.onmessage = (e) => this.message(e.data);
      this.ws.onclose = () => {
        if (!this.closed) this.showError('The live view closed');
      };
    }

    close() {
      this.closed = true;
      try { this.ws.close(); } catch (_) { /* already closed */ }
      this.card.remove();
    }

    send(message) {
      if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
    }

    showError(text) {
      const box = this.q('.error');
      box.textContent = text;
      box.hidden = !text;
    }

    message(data) {
      if (data.startsWith('{"type":"frame"')) {
        const frame = JSON.parse(data);
        this.meta = frame.metadata || {};
        this.frameTs = this.meta.timestamp || 0;
        this.frames += 1;
        this.img.src = 'data:image/jpeg;base64,' + frame.data;
        this.q('.placeholder').hidden = true;
        this.card.dataset.frames = String(this.frames);
        return;
      }
      let m;
      try { m = JSON.parse(data); } catch (_) { return; }
      switch (m.type) {
        case 'viewer':
          this.control = m.mode === 'control';
          this.q('.mode').textContent = this.control ? 'control' : 'watch only';
          this.q('.mode').className = 'mode ' + (this.control ? 'control' : 'watch');
          this.card.classList.toggle('watching', !this.control);
          this.card.dataset.mode = m.mode;
          this.q('.reopen').disabled = !this.control;
          break;
        case 'tabs':
          this.tabs(m.tabs || []);
          break;
        case 'url':
          this.q('.url').textContent = m.url;
          break;
        case 'retarget':
          if (m.url) this.q('.url').textContent = m.url;
          break;
        case 'dialog':
          this.dialog(m);
          break;
        case 'dialog_closed':
          this.q('.dialog').hidden = true;
          this.card.dataset.dialog = '';
          break;
        case 'error':
          this.showError(m.message);
          break;
        default:
          break;
      }
    }

    tabs(tabs) {
      const box = this.q('.tabs');
      box.textContent = '';
      for (const tab of tabs) {
        const item = document.createElement('li');
        item.textContent = (tab.tabId ? tab.tabId + ' ' : '') + (tab.title || tab.url);
        item.title = tab.url;
        if (tab.active) {
          item.className = 'active';
          this.q('.url').textContent = tab.url;
        }
        box.appendChild(item);
      }
    }

    dialog(m) {
      const box = this.q('.dialog');
      this.q('.dialog-text').textContent = m.dialogType + ': ' + m.message;
      const prompt = this.q('.dialog-prompt');
      prompt.hidden = m.dialogType !== 'prompt';
      prompt.value = m.defaultPrompt || '';
      this.q('.dialog-accept').disabled = !this.control;
      this.q('.dialog-dismiss').disabled = !this.control;
      box.hidden = false;
      this.card.dataset.dialog = m.dialogType;
    }

    answer(accept) {
      const prompt = this.q('.dialog-prompt');
      const message = { type: 'dialog_answer', accept };
      if (!prompt.hidden && accept) message.promptText = prompt.value;
      this.send(message);
    }

    // Page coordinates from the decoded image's own size (never the metadata height).
    point(e) {
      const rect = this.img.getBoundingClientRect();
      const natW = this.img.naturalWidth || rect.width;
      const natH = this.img.naturalHeight || rect.height;
      const ix = (e.clientX - rect.left) * natW / rect.width;
      const iy = (e.clientY - rect.top) * natH / rect.height;
      // A scaled frame (max width) maps back to CSS pixels by its width ratio.
      const css = this.meta && this.meta.deviceWidth > 0 ? this.meta.deviceWidth / natW : 1;
      return { x: Math.round(ix * css), y: Math.round(iy * css) };
    }

    mouse(eventType, e, extra) {
      if (!this.control || !this.img.naturalWidth) return;
      const p = this.point(e);
      const buttons = ['left', 'middle', 'right', 'back', 'forward'];
      this.send(Object.assign({
        type: 'input_mouse', eventType, x: p.x, y: p.y,
        button: eventType === 'mouseMoved' || eventType === 'mouseWheel'
          ? 'none' : (buttons[e.button] || 'left'),
        clickCount: eventType === 'mousePressed' || eventType === 'mouseReleased'
          ? Math.max(1, e.detail || 1) : 0,
        modifiers: modifiers(e),
      }, extra || {}));
    }

    typeText(text) {
      // One key press per character: paste, composition and mobile keyboards.
      for (const ch of Array.from(text)) {
        const enter = ch === '\n' || ch === '\r';
        const key = enter ? 'Enter' : ch;
        const code = keyCode(key, 0);
        this.send({ type: 'input_keyboard', eventType: 'keyDown', key, text: enter ? '\r' : ch,
          windowsVirtualKeyCode: code });
        this.send({ type: 'input_keyboard', eventType: 'keyUp', key, windowsVirtualKeyCode: code });
      }
    }

    wire() {
      const screen = this.q('.screen');
      this.img.addEventListener('mousedown', (e) => {
        e.preventDefault();
        this.keys.focus({ preventScroll: true });
        this.mouse('mousePressed', e);
      });
      this.img.addEventListener('mouseup', (e) => this.mouse('mouseReleased', e));
      this.img.addEventListener('contextmenu', (e) => e.preventDefault());
      this.img.addEventListener('mousemove', (e) => {
        // At most one move per animation frame.
        const first = this.pendingMove === null;
        this.pendingMove = e;
        if (first) {
          requestAnimationFrame(() => {
            const move = this.pendingMove;
            this.pendingMove = null;
            if (move) this.mouse('mouseMoved', move);
          });
        }
      });
      this.img.addEventListener('wheel', (e) => {
        if (!this.control) return;
        e.preventDefault();
        const scale = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1;
        this.mouse('mouseWheel', e, { deltaX: e.deltaX * scale, deltaY: e.deltaY * scale });
      }, { passive: false });
      this.keys.addEventListener('focus', () => screen.classList.add('focused'));
      this.keys.addEventListener('blur', () => screen.classList.remove('focused'));
      this.keys.addEventListener('keydown', (e) => {
        if (!this.control || e.isComposing || e.keyCode === 229) return;
        const printable = e.key.length === 1 && !e.ctrlKey && !e.metaKey;
        const message = { type: 'input_keyboard', eventType: 'keyDown', key: e.key, code: e.code,
          windowsVirtualKeyCode: keyCode(e.key, e.keyCode), modifiers: modifiers(e) };
        if (printable) message.text = e.key;
        if (e.key === 'Enter') message.text = '\r';
        // Paste goes through the paste event, one event per character.
        if ((e.ctrlKey || e.metaKey) && (e.key === 'v' || e.key === 'V')) return;
        e.preventDefault();
        this.send(message);
      });
      this.keys.addEventListener('keyup', (e) => {
        if (!this.control || e.isComposing) return;
        e.preventDefault();
        this.send({ type: 'input_keyboard', eventType: 'keyUp', key: e.key, code: e.code,
          windowsVirtualKeyCode: keyCode(e.key, e.keyCode), modifiers: modifiers(e) });
      });
      this.keys.addEventListener('paste', (e) => {
        e.preventDefault();
        if (this.control) this.typeText((e.clipboardData || window.clipboardData).getData('text'));
      });
      // Composition and on-screen keyboards end up here: send what was written, then clear.
      this.keys.addEventListener('input', () => {
        const text = this.keys.value;
        this.keys.value = '';
        if (this.control && text) this.typeText(text);
      });
      this.q('.dialog-accept').addEventListener('click', () => this.answer(true));
      this.q('.dialog-dismiss').addEventListener('click', () => this.answer(false));
      this.q('.dialog-prompt').addEventListener('keydown', (e) => {
        if (e.key === 'Enter') this.answer(true);
      });
      this.q('.reopen').addEventListener('click', () => this.send({ type: 'reopen_tab' }));
    }

    tick() {
      const age = this.frameTs ? Math.max(0, Date.now() - this.frameTs) : null;
      this.q('.age').textContent = age === null ? 'no frame yet'
        : 'frame ' + (age < 1000 ? age + ' ms' : (age / 1000).toFixed(1) + ' s') + ' old';
    }
  }

  async function refresh() {
    let sessions;
    try {
      const headers = token ? { Authorization: 'Bearer ' + token } : {};
      const reply = await fetch('/api/sessions', { headers, cache: 'no-store' });
      if (reply.status === 401) {
        notice.textContent = 'This dashboard needs its token: open it as ' + location.origin +
          '/?token=<token>';
        notice.hidden = false;
        return;
      }
      sessions = await reply.json();
    } catch (err) {
      notice.textContent = 'Cannot reach the dashboard server: ' + err;
      notice.hidden = false;
      return;
    }
    notice.hidden = true;
    const names = new Set(sessions.map((s) => s.session));
    for (const [name, view] of views) {
      if (!names.has(name)) {
        view.close();
        views.delete(name);
      }
    }
    for (const s of sessions) {
      if (!views.has(s.session)) {
        const view = new View(s.session);
        views.set(s.session, view);
        list.appendChild(view.card);
      }
    }
    summary.textContent = sessions.length === 0 ? 'No live sessions'
      : sessions.length + (sessions.length === 1 ? ' session' : ' sessions');
    document.body.dataset.sessions = String(sessions.length);
  }

  fpsSelect.addEventListener('change', () => {
    const fps = Number(fpsSelect.value);
    for (const view of views.values()) view.send({ type: 'config', maxFps: fps });
  });

  refresh();
  setInterval(refresh, 2000);
  setInterval(() => { for (const view of views.values()) view.tick(); }, 250);
})()
