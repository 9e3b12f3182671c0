// Probe: N tabs in one Chrome, screencast each, count frames. Variants by argv.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const [,, variant='shared', headedArg='headless', nArg='4', urlArg] = process.argv;
const N = +nArg;
const headed = headedArg === 'headed';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lvprobe-'));
const flags = ['--remote-debugging-port=0', `--user-data-dir=${dir}`, '--no-sandbox', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic',
  '--disable-backgrounding-occluded-windows', '--window-size=1280,720', '--disable-popup-blocking'];
if (!headed) flags.push('--headless=new', '--enable-unsafe-swiftshader');
if (variant.includes('flags')) flags.push('--disable-renderer-backgrounding', '--disable-background-timer-throttling');
const chrome = spawn('/usr/bin/chromium', [...flags, 'about:blank'], { stdio: 'ignore', env: process.env });
let port;
for (let i = 0; i < 200 && !port; i++) { await new Promise(r => setTimeout(r, 50));
  try { port = fs.readFileSync(path.join(dir, 'DevToolsActivePort'), 'utf8').split('\n'); } catch {} }
const ws = new WebSocket(`ws://127.0.0.1:${port[0]}${port[1]}`);
await new Promise(r => ws.onopen = r);
let id = 0; const pending = new Map(); const handlers = [];
ws.onmessage = (m) => { const msg = JSON.parse(m.data); if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id);} else handlers.forEach(h => h(msg)); };
const call = (method, params = {}, sessionId) => new Promise(r => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params, sessionId })); });
const url = urlArg;
const counts = {}; const vis = {};
handlers.push(msg => {
  if (msg.method === 'Page.screencastFrame') { counts[msg.sessionId] = (counts[msg.sessionId]||0)+1;
    ws.send(JSON.stringify({ id: ++id, method: 'Page.screencastFrameAck', params: { sessionId: msg.params.sessionId }, sessionId: msg.sessionId })); }
  if (msg.method === 'Page.screencastVisibilityChanged') vis[msg.sessionId] = msg.params.visible;
});
const sessions = [];
const newWindow = variant.includes('window');
const background = !variant.includes('fg');
for (let i = 0; i < N; i++) {
  const r = await call('Target.createTarget', { url: 'about:blank', newWindow, background });
  const a = await call('Target.attachToTarget', { targetId: r.result.targetId, flatten: true });
  const s = a.result.sessionId; sessions.push(s);
  await call('Page.enable', {}, s);
  if (variant.includes('focus')) await call('Emulation.setFocusEmulationEnabled', { enabled: true }, s);
  if (variant.includes('lifecycle')) console.log('lifecycle', JSON.stringify((await call('Page.setWebLifecycleState', { state: 'active' }, s)).error||'ok'));
  await call('Page.navigate', { url }, s);
}
await new Promise(r => setTimeout(r, 800));
for (const s of sessions) call('Page.startScreencast', { format: 'jpeg', quality: 80, everyNthFrame: 1 }, s);
if (variant.includes('steal')) { const r = await call('Target.createTarget', { url: 'about:blank', newWindow: false, background: false }); await call('Target.activateTarget', { targetId: r.result.targetId }); }
await new Promise(r => setTimeout(r, 1000));
for (const s of sessions) counts[s] = 0;
const t0 = Date.now(); await new Promise(r => setTimeout(r, 3000)); const dt = (Date.now() - t0) / 1000;
const fps = sessions.map(s => ((counts[s]||0)/dt).toFixed(1));
const rafs = [];
for (const s of sessions) { const r = await call('Runtime.evaluate', { expression: 'document.visibilityState + "/" + document.hasFocus()', returnByValue: true }, s); rafs.push(r.result?.result?.value); }
console.log(`${variant} ${headedArg} N=${N}: fps=[${fps.join(', ')}] vis=[${sessions.map(s=>vis[s]).join(',')}] page=[${rafs.join(',')}]`);
await call('Browser.close');
chrome.kill(); await new Promise(r => setTimeout(r, 300)); try{fs.rmSync(dir, { recursive: true, force: true })}catch{}; process.exit(0);
