// Probe: what Chrome itself charges for a stage's tab, over raw CDP (no abx in the loop).
// "fresh": Target.createTarget(about:blank) + attachToTarget + Page/Runtime.enable + the first
// renderer answers (location.href, frame tree): what a pinned stage pays today.
// "pre-created": the same attach and reads on a tab that already exists (its renderer is up).
// node --experimental-websocket benches/probes/stage_tab_floor.mjs [rounds]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const rounds = +(process.argv[2] || 15);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabfloor-'));
const chrome = spawn('/usr/bin/chromium', ['--headless=new', '--remote-debugging-port=0', `--user-data-dir=${dir}`,
  '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-quic', 'about:blank'], { stdio: 'ignore' });
let port;
for (let i = 0; i < 200 && !port; i++) { await new Promise(r => setTimeout(r, 50));
  try { port = fs.readFileSync(path.join(dir, 'DevToolsActivePort'), 'utf8').split('\n'); } catch {} }
const ws = new WebSocket(`ws://127.0.0.1:${port[0]}${port[1]}`);
await new Promise(r => ws.onopen = r);
let next = 0; const waiting = new Map();
ws.onmessage = e => { const m = JSON.parse(e.data); if (m.id && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); } };
const call = (method, params = {}, sessionId) => new Promise(r => { const id = ++next; waiting.set(id, r);
  ws.send(JSON.stringify({ id, method, params, sessionId })); });
const attachAndRead = async targetId => {
  const { result: { sessionId } } = await call('Target.attachToTarget', { targetId, flatten: true });
  call('Page.enable', {}, sessionId); call('Runtime.enable', {}, sessionId);
  await Promise.all([call('Runtime.evaluate', { expression: 'location.href' }, sessionId),
    call('Page.getFrameTree', {}, sessionId)]);
  return sessionId;
};
const fresh = [], precreated = [];
for (let i = 0; i < rounds; i++) {
  let t = performance.now();
  const { result: { targetId } } = await call('Target.createTarget', { url: 'about:blank', background: true });
  const sessionId = await attachAndRead(targetId);
  fresh.push(performance.now() - t);
  await call('Target.detachFromTarget', { sessionId });
  await new Promise(r => setTimeout(r, 300));
  t = performance.now();
  await attachAndRead(targetId);
  precreated.push(performance.now() - t);
  await call('Target.closeTarget', { targetId });
  await new Promise(r => setTimeout(r, 200));
}
const q = (v, p) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.round((v.length - 1) * p))].toFixed(1);
console.log('| tab | p10 ms | p50 ms | p90 ms |\n|---|---|---|---|');
console.log(`| fresh (create + attach + first answers) | ${q(fresh, .1)} | ${q(fresh, .5)} | ${q(fresh, .9)} |`);
console.log(`| pre-created (attach + first answers) | ${q(precreated, .1)} | ${q(precreated, .5)} | ${q(precreated, .9)} |`);
ws.close(); chrome.kill(); await new Promise(r => chrome.on('exit', r));
fs.rmSync(dir, { recursive: true, force: true });
