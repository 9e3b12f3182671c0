#!/usr/bin/env node
// Records the CDP events Chrome sends a tab for each navigation pattern of the corpus (the fixture
// site's /nav/ pages), as the test data of the navigation-settling unit tests
// (crates/engine/src/tab/traces/, read by crates/engine/src/tab/settle.rs's tests).
//
//   cargo build -p abx-fixtures
//   node --experimental-websocket benches/probes/navigation_traces.mjs [--only <regex>]
//
// For each scenario and each Chrome binary (the headless shell and full Chromium, headless), it
// starts a fresh Chrome with a throw-away profile, attaches to its tab with Page and Runtime
// enabled and lifecycle events on (as the engine does), runs the scenario's set-up steps, then
// writes a `mark` line, runs the step under test, and records every event of the tab's session
// until the tab has been quiet for a while. A `Page.navigate` reply is recorded where it arrived.
// Origins are written as http://site.test and http://other.test so that traces do not depend on
// the port. Only PIDs this script started are signalled.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = join(REPO, 'crates/engine/src/tab/traces');
const FIXTURES = join(REPO, 'target/debug/abx-fixtures');
const BINARIES = { shell: '/usr/bin/chromium-headless-shell', full: '/usr/bin/chromium' };
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--remote-debugging-port=0'];
// Methods the tab reducer reads (others are left out of the traces).
const KEPT = /^(Page\.(frameRequestedNavigation|frameStartedNavigating|frameScheduledNavigation|frameClearedScheduledNavigation|frameStartedLoading|frameStoppedLoading|frameNavigated|navigatedWithinDocument|lifecycleEvent|javascriptDialogOpening|javascriptDialogClosed)|Inspector\.)/;

// Lifecycle events the engine reads (paint events are left out).
const LIFECYCLE = new Set(['init', 'commit', 'DOMContentLoaded', 'load', 'networkAlmostIdle', 'networkIdle']);
// Frame fields the reducer's decoding needs (the rest is left out).
const FRAME_FIELDS = ['id', 'parentId', 'loaderId', 'url', 'urlFragment', 'domainAndRegistry', 'securityOrigin', 'mimeType',
  'unreachableUrl', 'secureContextType', 'crossOriginIsolatedContextType', 'gatedAPIFeatures'];
function slim(params) {
  const out = { ...params };
  if ('timestamp' in out) out.timestamp = 0;
  if (out.frame) out.frame = Object.fromEntries(FRAME_FIELDS.filter((k) => k in out.frame).map((k) => [k, out.frame[k]]));
  return out;
}

const only = process.argv.includes('--only') ? new RegExp(process.argv[process.argv.indexOf('--only') + 1]) : null;

// The scenarios: set-up steps, the step under test, and what the settled tab must show.
// `outcome`: the settle predicate's verdict when the wait ends (`Reached`, `SameDocument`,
// `NoDocument`), `error` when Chrome refuses the navigation in its reply, `never` when the wait
// must still be going at the end (a load that never comes).
const go = (url) => ({ go: url });
const click = (selector) => ({ click: selector });
const S = 'http://site.test';
const SCENARIOS = [
  ...[301, 302, 303, 307, 308].map((code) => ({ name: `server-${code}`, setup: [go('/page1.html')], act: go(`/nav/redirect?code=${code}`), url: `${S}/nav/landed?via=${code}`, outcome: 'Reached' })),
  { name: 'server-chain', setup: [go('/page1.html')], act: go('/nav/chain?hops=5'), url: `${S}/nav/landed?via=chain-301-302-303-307-308`, outcome: 'Reached' },
  { name: 'server-cross-origin', setup: [go('/page1.html')], act: go('/nav/cross'), url: 'http://other.test/nav/landed?via=cross', outcome: 'Reached' },
  { name: 'server-cookie-hop', setup: [go('/page1.html')], act: go('/nav/set-cookie'), url: `${S}/nav/landed?via=cookie`, outcome: 'Reached' },
  { name: 'server-to-404', setup: [go('/page1.html')], act: go('/nav/redirect?to=/nav/missing'), url: `${S}/nav/missing`, outcome: 'Reached' },
  ...['replace', 'assign', 'href'].flatMap((how) => ['head', 'body', 'dcl', 'load'].map((when) => ({
    name: `client-${how}-${when}`, setup: [go('/page1.html')], act: go(`/nav/client?how=${how}&when=${when}`), url: `${S}/nav/landed?via=${how}-${when}`, outcome: 'Reached',
  }))),
  { name: 'client-timer-after-load', setup: [go('/page1.html')], act: go('/nav/client?how=assign&when=timer&ms=300'), url: `${S}/nav/client?how=assign&when=timer&ms=300`, outcome: 'Reached' },
  { name: 'client-replace-while-held', setup: [go('/page1.html')], act: go('/nav/client?how=replace&when=timer&ms=100&hold=1'), url: `${S}/nav/landed?via=replace-timer`, outcome: 'Reached' },
  { name: 'meta-refresh-0', setup: [go('/page1.html')], act: go('/nav/meta?delay=0'), url: `${S}/nav/landed?via=meta-0`, outcome: 'Reached' },
  { name: 'meta-refresh-1', setup: [go('/page1.html')], act: go('/nav/meta?delay=1'), url: `${S}/nav/meta?delay=1`, outcome: 'Reached' },
  { name: 'form-auto-post-303', setup: [go('/page1.html')], act: go('/nav/form?auto=1'), url: `${S}/nav/landed?via=form-auto`, outcome: 'Reached' },
  { name: 'form-button-post-303', setup: [go('/nav/form')], act: click('#send'), url: `${S}/nav/landed?via=form-button`, outcome: 'Reached' },
  { name: 'push-state-at-load', setup: [go('/page1.html')], act: go('/nav/history?op=push&when=load'), url: `${S}/nav/pushed?op=push`, outcome: 'Reached' },
  { name: 'push-state-button', setup: [go('/nav/history?op=push&when=button')], act: click('#change'), url: `${S}/nav/pushed?op=push`, outcome: 'SameDocument' },
  { name: 'replace-state-button', setup: [go('/nav/history?op=replace&when=button')], act: click('#change'), url: `${S}/nav/pushed?op=replace`, outcome: 'SameDocument' },
  { name: 'fragment-cross-document', setup: [go('/page1.html')], act: go('/nav/anchors.html#part2'), url: `${S}/nav/anchors.html#part2`, outcome: 'Reached' },
  { name: 'fragment-same-document', setup: [go('/nav/anchors.html#part1')], act: go('/nav/anchors.html#part3'), url: `${S}/nav/anchors.html#part3`, outcome: 'SameDocument' },
  { name: 'fragment-link', setup: [go('/nav/anchors.html')], act: click('#to-part2'), url: `${S}/nav/anchors.html#part2`, outcome: 'SameDocument' },
  { name: 'status-204', setup: [go('/page1.html')], act: go('/nav/status?code=204'), url: `${S}/page1.html`, outcome: 'error' },
  { name: 'status-205-link', setup: [go('/nav/links.html?to=/nav/status?code=205')], act: click('#go'), url: `${S}/nav/links.html?to=/nav/status?code=205`, outcome: 'NoDocument' },
  { name: 'download', setup: [go('/page1.html')], act: go('/nav/download'), url: `${S}/page1.html`, outcome: 'error' },
  { name: 'download-link', setup: [go('/nav/links.html?to=/nav/download')], act: click('#go'), url: `${S}/nav/links.html?to=/nav/download`, outcome: 'NoDocument' },
  { name: 'json', setup: [go('/page1.html')], act: go('/nav/data.json'), url: `${S}/nav/data.json`, outcome: 'Reached' },
  { name: 'text', setup: [go('/page1.html')], act: go('/nav/note.txt'), url: `${S}/nav/note.txt`, outcome: 'Reached' },
  { name: 'data-url', setup: [go('/page1.html')], act: go('data:text/html,<title>Data</title><p>d'), url: 'data:text/html,<title>Data</title><p>d', outcome: 'Reached' },
  { name: 'about-blank', setup: [go('/page1.html')], act: go('about:blank'), url: 'about:blank', outcome: 'Reached' },
  { name: 'refused', setup: [go('/page1.html')], act: go('http://127.0.0.1:65534/'), url: `${S}/page1.html`, outcome: 'error' },
  { name: 'not-found', setup: [go('/page1.html')], act: go('/nav/missing'), url: `${S}/nav/missing`, outcome: 'Reached' },
  { name: 'server-error', setup: [go('/page1.html')], act: go('/nav/server-error'), url: `${S}/nav/server-error`, outcome: 'Reached' },
  { name: 'slow-first-byte', setup: [go('/page1.html')], act: go('/slow?ms=400'), url: `${S}/slow?ms=400`, outcome: 'Reached' },
  { name: 'slow-subresource', setup: [go('/page1.html')], act: go('/nav/slow-sub?ms=400'), url: `${S}/nav/slow-sub?ms=400`, outcome: 'Reached' },
  { name: 'stuck-image', setup: [go('/page1.html')], act: go('/nav/stuck?res=img'), url: `${S}/nav/stuck?res=img`, outcome: 'never' },
  { name: 'iframes-navigate', setup: [go('/page1.html')], act: go('/nav/iframes'), url: `${S}/nav/iframes`, outcome: 'Reached' },
  { name: 'window-open-onload', setup: [go('/page1.html')], act: go('/nav/window-open'), url: `${S}/nav/window-open`, outcome: 'Reached' },
  { name: 'link-to-client-redirect', setup: [go('/nav/links.html?to=/nav/client?how=replace%26when=head')], act: click('#go'), url: `${S}/nav/landed?via=replace-head`, outcome: 'Reached' },
  { name: 'link-to-server-redirect', setup: [go('/nav/links.html?to=/nav/redirect?code=302')], act: click('#go'), url: `${S}/nav/landed?via=302`, outcome: 'Reached' },
  { name: 'back-over-replace', setup: [go('/page1.html'), go('/nav/client?how=replace&when=head')], act: { back: 1 }, url: `${S}/page1.html`, outcome: 'Reached' },
  { name: 'back-into-onload-redirect', setup: [go('/page1.html'), go('/nav/client?how=assign&when=load'), go('/page2.html')], act: { back: 1 }, url: `${S}/nav/landed?via=assign-load`, outcome: 'Reached' },
  { name: 'back-bfcache', setup: [go('/nav/bfcache'), go('/page2.html')], act: { back: 1 }, url: `${S}/nav/bfcache`, outcome: 'Reached' },
  { name: 'forward-bfcache', setup: [go('/nav/bfcache'), go('/page2.html'), { back: 1 }], act: { forward: 1 }, url: `${S}/page2.html`, outcome: 'Reached' },
  { name: 'back-same-document', setup: [go('/nav/anchors.html#part1'), go('/nav/anchors.html#part2')], act: { back: 1 }, url: `${S}/nav/anchors.html#part1`, outcome: 'SameDocument' },
  { name: 'reload', setup: [go('/nav/landed')], act: { reload: 1 }, url: `${S}/nav/landed`, outcome: 'Reached' },
  { name: 'reload-after-client-redirect', setup: [go('/nav/client?how=replace&when=head')], act: { reload: 1 }, url: `${S}/nav/landed?via=replace-head`, outcome: 'Reached' },
];

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

async function startFixtures() {
  const child = spawn(FIXTURES, [], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((res, rej) => {
    createInterface({ input: child.stdout }).once('line', res);
    child.once('exit', () => rej(new Error('abx-fixtures exited; build it with cargo build -p abx-fixtures')));
  });
  return { child, origin: line.trim() };
}

async function chromeSession(binary) {
  const dir = mkdtempSync(join(tmpdir(), 'abx-navtrace-'));
  // Its own process group: Debian's /usr/bin/chromium* are wrapper scripts whose browser is a
  // child, so the whole group is ended, not only the PID spawned.
  const chrome = spawn(binary, [...FLAGS, '--headless', `--user-data-dir=${dir}`, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let text = '';
  const wsUrl = await new Promise((res, rej) => {
    chrome.stderr.on('data', (d) => { text += d; const m = text.match(/ws:\/\/\S+/); if (m) res(m[0]); });
    chrome.once('exit', () => rej(new Error(`${binary} exited: ${text}`)));
  });
  const ws = new WebSocket(wsUrl);
  await new Promise((r) => { ws.onopen = r; });
  let id = 0;
  const pending = new Map();
  const listeners = new Set();
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); return; }
    for (const l of listeners) l(msg);
  };
  const call = (method, params = {}, sessionId) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
  const { result: { targetInfos } } = await call('Target.getTargets');
  const page = targetInfos.find((t) => t.type === 'page');
  const sessionId = (await call('Target.attachToTarget', { targetId: page.targetId, flatten: true })).result.sessionId;
  for (const [m, p] of [['Page.enable', {}], ['Page.setLifecycleEventsEnabled', { enabled: true }], ['Runtime.enable', {}]]) await call(m, p, sessionId);
  const close = async () => {
    try { ws.close(); } catch {}
    try { process.kill(-chrome.pid, 'SIGKILL'); } catch {}
    await new Promise((r) => (chrome.exitCode !== null || chrome.signalCode !== null ? r() : chrome.once('exit', r)));
    try { rmSync(dir, { recursive: true, force: true }); } catch {}
  };
  return { call: (m, p) => call(m, p, sessionId), listeners, sessionId, targetId: page.targetId, close };
}

/// Runs one step; resolves once the tab has been quiet for `quietMs` after it (or `maxMs`).
async function step(tab, origin, action, record, quietMs, maxMs) {
  let last = Date.now();
  const start = Date.now();
  const listener = (msg) => {
    if (msg.sessionId !== tab.sessionId) return;
    last = Date.now();
    if (record && KEPT.test(msg.method) && !(msg.method === 'Page.lifecycleEvent' && !LIFECYCLE.has(msg.params.name))) {
      record({ method: msg.method, params: slim(msg.params) });
    }
  };
  tab.listeners.add(listener);
  const abs = (url) => (url.startsWith('/') ? origin + url : url);
  if (action.go) {
    tab.call('Page.navigate', { url: abs(action.go) }).then((reply) => { last = Date.now(); if (record) record({ reply: reply.result ?? reply.error }); });
  } else if (action.click) {
    await tab.call('Runtime.evaluate', { expression: `document.querySelector(${JSON.stringify(action.click)}).click()`, userGesture: true });
  } else if (action.back || action.forward) {
    const h = (await tab.call('Page.getNavigationHistory')).result;
    const entry = h.entries[h.currentIndex + (action.back ? -1 : 1)];
    await tab.call('Page.navigateToHistoryEntry', { entryId: entry.id });
  } else if (action.reload) {
    await tab.call('Page.reload', {});
  }
  while (Date.now() - last < quietMs && Date.now() - start < maxMs) await sleep(25);
  tab.listeners.delete(listener);
}

function normalise(value, origin) {
  const port = new URL(origin).port;
  return JSON.parse(JSON.stringify(value)
    .replaceAll(`http://127.0.0.1:${port}`, 'http://site.test')
    .replaceAll(`http://localhost:${port}`, 'http://other.test')
    .replaceAll(`127.0.0.1:${port}`, 'site.test')
    .replaceAll(`localhost:${port}`, 'other.test'));
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const fixtures = await startFixtures();
  try {
    for (const [kind, binary] of Object.entries(BINARIES)) {
      for (const scenario of SCENARIOS) {
        if (only && !only.test(scenario.name)) continue;
        const tab = await chromeSession(binary);
        try {
          for (const s of scenario.setup) await step(tab, fixtures.origin, s, null, 400, 5000);
          const before = (await tab.call('Runtime.evaluate', { expression: 'location.href', returnByValue: true })).result?.result?.value;
          const lines = [{ scenario: scenario.name, chrome: kind, target: tab.targetId, before, expect: { url: scenario.url, outcome: scenario.outcome } }, { mark: true }];
          await step(tab, fixtures.origin, scenario.act, (event) => lines.push(event), 900, 6000);
          const file = join(OUT, `${scenario.name}.${kind}.jsonl`);
          writeFileSync(file, lines.map((l) => JSON.stringify(normalise(l, fixtures.origin))).join('\n') + '\n');
          console.log(`${kind} ${scenario.name}: ${lines.length - 2} events`);
        } finally {
          await tab.close();
        }
      }
    }
  } finally {
    fixtures.child.kill('SIGTERM');
  }
}

await main();
