// Probe: the dashboard page driven in Firefox through WebDriver BiDi (no geckodriver needed:
// Firefox serves BiDi itself on --remote-debugging-port). The Chromium e2e test
// (tests/dashboard.rs) runs in CI; this probe checks the same page in Firefox by hand:
//   node --experimental-websocket benches/probes/dashboard_firefox.mjs [agent-browser] [firefox]
// It starts the fixture site, one session on the form page, the dashboard, and a headless Firefox;
// waits for live frames, types into the form through the picture (Backspace and Enter included),
// answers a confirm with the dashboard's Accept button, and saves target/dashboard-firefox.png.
// Exit 0 when every step held; it prints each step and cleans up what it started.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const bin = process.argv[2] || path.join(root, 'target/debug/agent-browser');
const firefox = process.argv[3] || 'firefox-esr';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'abx-ff-'));
const env = {
  ...process.env,
  AGENT_BROWSER_SOCKET_DIR: path.join(work, 'sock'),
  AGENT_BROWSER_NO_VERSION_CHECK: '1',
  AGENT_BROWSER_IDLE_TIMEOUT_MS: '0',
  AGENT_BROWSER_ARGS: process.env.AGENT_BROWSER_ARGS ||
    '--no-sandbox,--disable-background-networking,--disable-component-update,--disable-sync,--no-first-run,--disable-quic',
};
fs.mkdirSync(env.AGENT_BROWSER_SOCKET_DIR);
const t0 = Date.now();
const step = (what) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${what}`);
const ab = (...args) => execFileSync(bin, ['--session', 'ff', ...args], { env, encoding: 'utf8' }).trim();
const stageEval = (expr) => JSON.parse(ab('--json', 'eval', expr)).data.result;
const freePort = () => new Promise((resolve) => {
  const srv = net.createServer().listen(0, '127.0.0.1', () => { const { port } = srv.address(); srv.close(() => resolve(port)); });
});
const until = async (what, fn, ms = 15000) => {
  const end = Date.now() + ms;
  for (;;) {
    const got = await fn();
    if (got) return got;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

const children = [];
let failed = false;
try {
  // The fixture site, on a free port, from the repository's own fixture server.
  const sitePort = await freePort();
  const site = spawn(path.join(path.dirname(bin), 'abx-fixtures'), ['--port', String(sitePort)], { stdio: 'ignore' });
  children.push(site);
  const siteUrl = `http://127.0.0.1:${sitePort}`;
  await until('the fixture site', () => fetch(`${siteUrl}/form.html`).then((r) => r.ok, () => false));
  ab('open', `${siteUrl}/form.html`);

  const dashPort = await freePort();
  step(ab('dashboard', 'start', '--port', String(dashPort)));

  const bidiPort = await freePort();
  const profile = path.join(work, 'profile');
  fs.mkdirSync(profile);
  const ff = spawn(firefox, ['--headless', '--no-remote', '--profile', profile,
    `--remote-debugging-port=${bidiPort}`, '--window-size=1280,900'],
    { stdio: 'ignore', env: { ...process.env, HOME: work }, detached: true });
  children.push(ff);
  const version = execFileSync(firefox, ['--version'], { encoding: 'utf8' }).trim();
  step(`started ${version}`);

  const ws = await until('Firefox BiDi', () => new Promise((resolve) => {
    const s = new WebSocket(`ws://127.0.0.1:${bidiPort}/session`);
    s.onopen = () => resolve(s);
    s.onerror = () => resolve(null);
  }), 30000);
  let id = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && pending.has(msg.id)) { pending.get(msg.id)(msg); pending.delete(msg.id); }
  };
  const call = (method, params = {}) => new Promise((resolve, reject) => {
    const i = ++id;
    pending.set(i, (msg) => (msg.type === 'error' ? reject(new Error(`${method}: ${msg.error} ${msg.message}`)) : resolve(msg.result)));
    ws.send(JSON.stringify({ id: i, method, params }));
  });
  await call('session.new', { capabilities: {} });
  const tree = await call('browsingContext.getTree', {});
  const context = tree.contexts[0].context;
  const evaluate = async (expression) => {
    const r = await call('script.evaluate', { expression, target: { context }, awaitPromise: true, resultOwnership: 'none' });
    if (r.type === 'exception') throw new Error(`page threw: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  await call('browsingContext.navigate', { context, url: `http://127.0.0.1:${dashPort}/`, wait: 'complete' });

  const card = `document.querySelector('section.card[data-session="ff"]')`;
  await until('live frames in Firefox', () => evaluate(`!!${card} && Number(${card}.dataset.frames || 0) >= 1`))
    .catch(async (err) => {
      console.error(await evaluate(`JSON.stringify({ text: document.body.innerText.slice(0, 400), card: ${card} && { ...${card}.dataset } })`));
      throw err;
    });
  step(`frames arrive: ${await evaluate(`${card}.dataset.frames`)}, mode ${await evaluate(`${card}.dataset.mode`)}`);

  // Click the picture where the stage's #name field is, mapping CSS pixels of the stage to the
  // picture's own scale, then type with a typo fixed by Backspace, then Enter.
  const clickStage = async (selector) => {
    const at = stageEval(`(() => { const r = document.querySelector('${selector}').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`);
    const [px, py] = await evaluate(`(() => { const img = ${card}.querySelector('.frame'); const r = img.getBoundingClientRect(); const s = r.width / img.naturalWidth; return [Math.round(r.left + ${at[0]} * s), Math.round(r.top + ${at[1]} * s)]; })()`)
      .then((v) => v.map((x) => x.value));
    await call('input.performActions', { context, actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [
      { type: 'pointerMove', x: px, y: py }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }] }] });
  };
  const keys = (text) => [...text].flatMap((value) => [{ type: 'keyDown', value }, { type: 'keyUp', value }]);
  await clickStage('#name');
  await call('input.performActions', { context, actions: [{ type: 'key', id: 'kb', actions: [
    ...keys('Adx'), ...keys('\uE003'), ...keys('a Lovelace')] }] });
  await until('the typed name in the stage', () => ab('get', 'value', '#name') === 'Ada Lovelace');
  step('typed "Ada Lovelace" through the picture (Backspace fixed a typo)');
  await call('input.performActions', { context, actions: [{ type: 'key', id: 'kb', actions: keys('\uE007') }] });
  await until('the form submitted by Enter', () => String(stageEval(`document.querySelector('#result').textContent`)).includes('Ada Lovelace'));
  step('Enter submitted the form');

  ab('open', `${siteUrl}/dialogs.html`);
  await until('the card follows the stage', () => evaluate(`${card}.querySelector('.url').textContent.endsWith('/dialogs.html')`));
  await clickStage('#confirm');
  await until('the confirm in the dashboard', () => evaluate(`${card}.dataset.dialog === 'confirm'`));
  step(`dialog shown: ${await evaluate(`${card}.querySelector('.dialog-text').textContent`)}`);
  const shot = await call('browsingContext.captureScreenshot', { context });
  fs.mkdirSync(path.join(root, 'target'), { recursive: true });
  fs.writeFileSync(path.join(root, 'target/dashboard-firefox.png'), Buffer.from(shot.data, 'base64'));
  step('saved target/dashboard-firefox.png');
  await evaluate(`${card}.querySelector('.dialog-accept').click()`);
  await until('the accepted confirm', () => String(stageEval(`document.querySelector('#result').textContent`)).includes('confirm:true'));
  step('Accept answered the confirm');
  await call('session.end', {}).catch(() => {});
  ws.close();
  step('every step held in Firefox');
} catch (err) {
  failed = true;
  console.error(`FAILED: ${err.message}`);
} finally {
  try { execFileSync(bin, ['dashboard', 'stop'], { env, stdio: 'ignore' }); } catch {}
  try { ab('close'); } catch {}
  for (const child of children) {
    try { process.kill(child === children[1] ? -child.pid : child.pid, 'SIGTERM'); } catch {}
  }
  await new Promise((r) => setTimeout(r, 500));
  fs.rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
