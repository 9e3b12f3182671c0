#!/usr/bin/env node
// Side by side in one run: abx, upstream agent-browser 0.41.2 and Playwright (in-process) on the
// same Chrome binaries (issue 15 item 5). Start it through benches/side_by_side/run.sh, which
// installs the pinned playwright-core (npm ci in benches/playwright, never a browser download)
// and builds abx and the fixture server unless told which binaries to use:
//
//   benches/side_by_side/run.sh                          7 iterations, prints a Markdown section
//   ABX_SBS_ITER=11 benches/side_by_side/run.sh --out F  … and writes it to F
//   ABX_SBS_ABX=/path/agent-browser benches/side_by_side/run.sh   a given abx binary
//   node benches/side_by_side/sbs.mjs --help             every option
//   node benches/side_by_side/sbs.mjs --self-check       checks the command lists, runs nothing
//
// What it measures, per Chrome binary (default /usr/bin/chromium and
// /usr/bin/chromium-headless-shell), the three runners alternating with the order rotated every
// iteration, median and p90 over ABX_SBS_ITER iterations (default 7):
// - cold `open`: abx and upstream spawn their daemon, launch Chrome and navigate, timed at the
//   shell; Playwright runs chromium.launch + newPage + goto in this process. Then `close` /
//   browser.close(), timed too. Plus one "default settings" row: no AGENT_BROWSER_EXECUTABLE_PATH
//   (abx picks the headless shell when installed, upstream its own choice), Playwright on the
//   headless shell (its default for headless).
// - the 20-command session of benches/support/twenty_commands.rs on a warm session, with
//   Playwright's nearest equivalents (TWENTY below says where they are loose);
// - warm `get url`, `click`, `fill`, `eval`, `snapshot -i`, `screenshot`, ABX_SBS_REPEAT samples each
//   per iteration (default 5), plus the floor: /bin/true and each CLI's `--version` through the
//   same spawner.
// Both CLIs run Host-style: AGENT_BROWSER_EXECUTABLE_PATH and AGENT_BROWSER_ARGS are set, so every
// command sends a `launch` first. Each CLI gets its own HOME, TMPDIR and socket dir per Chrome
// binary. CLI invocations are timed by spawner.py (vfork, like a shell) rather than node's
// child_process, which costs 3–5 ms per spawn here. Every process a runner starts carries
// ABX_COMPAT_RUN=<marker>-<runner> (benches/compat/lib/proc.mjs): after the graceful closes the
// run counts what is left (a leaked Chrome is a bug; it is reported) and ends it by pid.

import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

import { markedPids, sweep, CHROME_FLAGS, MARKER_VAR } from '../compat/lib/proc.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const PLAYWRIGHT_DIR = join(REPO, 'benches/playwright');

const DEFAULT_CHROMES = ['/usr/bin/chromium', '/usr/bin/chromium-headless-shell'];
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const RUNNERS = ['abx', 'upstream', 'playwright'];

const USAGE = `usage: node benches/side_by_side/sbs.mjs --abx B --upstream B --fixtures B [options]

  --abx <bin>          our agent-browser (release build)
  --upstream <bin>     upstream agent-browser 0.41.2's native binary
  --fixtures <bin>     the fixture server (abx-fixtures)
  --chrome <a,b>       Chrome binaries to run every scenario on (default ${DEFAULT_CHROMES.join(',')})
  --iter <n>           iterations (default $ABX_SBS_ITER or 7)
  --repeat <n>         samples per warm command per iteration (default $ABX_SBS_REPEAT or 5)
  --no-default         skip the "default settings" cold-open row
  --command <text>     the command line to print in the section (run.sh passes its own)
  --out <file>         also write the Markdown section to <file>
  --self-check         check the command lists against benches/support/twenty_commands.rs, run nothing`;

// ---------------------------------------------------------------------------------------------
// The scenarios

/**
 * The 20-command session: the CLI words of benches/support/twenty_commands.rs (checked by
 * --self-check) and what a Playwright user would write for each. Where they are loose:
 * - `open`: both wait for the load event (goto's default); the CLI also reads the title to print.
 * - `snapshot -i`: Playwright's AI-mode aria snapshot (the whole tree, with refs); the CLI lists
 *   the interactive elements with refs. `snapshot`: the default aria snapshot of <body>.
 * - `click a`: Playwright's click does not wait for the navigation it starts; the CLI's does, so
 *   Playwright's side also waits for page2's load event (waitForURL), as a script must before it
 *   reads the URL.
 * - `get url`: page.url() is Playwright's client-side copy, no round trip to Chrome at all.
 * - `scroll down 200`: mouse.wheel dispatches a wheel event (abx scrolls with window.scrollBy).
 * - `get text body`: innerText, as the CLIs read it.
 */
export function twenty(site, shot) {
  const url = (p) => `${site}${p}`;
  return [
    { cli: ['open', url('/page1.html')], pw: (p) => p.goto(url('/page1.html')) },
    { cli: ['get', 'title'], pw: (p) => p.title() },
    { cli: ['snapshot', '-i'], pw: (p) => p.ariaSnapshot({ mode: 'ai' }) },
    {
      cli: ['click', 'a'],
      pw: (p) => Promise.all([p.waitForURL('**/page2.html'), p.click('a')]),
    },
    { cli: ['get', 'url'], pw: (p) => p.url() },
    { cli: ['back'], pw: (p) => p.goBack() },
    { cli: ['open', url('/form.html')], pw: (p) => p.goto(url('/form.html')) },
    { cli: ['fill', 'input[name=name]', 'Ada'], pw: (p) => p.fill('input[name=name]', 'Ada') },
    { cli: ['get', 'value', 'input[name=name]'], pw: (p) => p.inputValue('input[name=name]') },
    { cli: ['press', 'Tab'], pw: (p) => p.keyboard.press('Tab') },
    { cli: ['eval', 'document.title'], pw: (p) => p.evaluate('document.title') },
    { cli: ['snapshot'], pw: (p) => p.locator('body').ariaSnapshot() },
    { cli: ['scroll', 'down', '200'], pw: (p) => p.mouse.wheel(0, 200) },
    { cli: ['screenshot', shot], pw: (p) => p.screenshot({ path: shot }) },
    { cli: ['open', url('/animated.html')], pw: (p) => p.goto(url('/animated.html')) },
    { cli: ['get', 'title'], pw: (p) => p.title() },
    { cli: ['eval', '1 + 1'], pw: (p) => p.evaluate('1 + 1') },
    { cli: ['is', 'visible', 'body'], pw: (p) => p.isVisible('body') },
    { cli: ['get', 'text', 'body'], pw: (p) => p.innerText('body') },
    { cli: ['reload'], pw: (p) => p.reload() },
  ];
}

/** Warm single commands: an untimed setup, then the command `repeat` times. */
export function warmCommands(site, shot) {
  const open = (page) => ({ cli: ['open', `${site}${page}`], pw: (p) => p.goto(`${site}${page}`) });
  return [
    { name: 'get url', setup: open('/page1.html'), cli: ['get', 'url'], pw: (p) => p.url() },
    { name: 'click', setup: open('/form.html'), cli: ['click', '#submit'], pw: (p) => p.click('#submit') },
    {
      name: 'fill',
      setup: open('/form.html'),
      cli: ['fill', '#name', 'Ada Lovelace'],
      pw: (p) => p.fill('#name', 'Ada Lovelace'),
    },
    {
      // One renderer round trip each: what the CLIs' fixed cost adds to the same Chrome work.
      name: 'eval',
      setup: open('/page1.html'),
      cli: ['eval', 'document.title'],
      pw: (p) => p.evaluate('document.title'),
    },
    {
      name: 'snapshot -i',
      setup: open('/fixture.html'),
      cli: ['snapshot', '-i'],
      pw: (p) => p.ariaSnapshot({ mode: 'ai' }),
    },
    {
      name: 'screenshot',
      setup: open('/fixture.html'),
      cli: ['screenshot', shot],
      pw: (p) => p.screenshot({ path: shot }),
    },
  ];
}

/** The argv lists of benches/support/twenty_commands.rs, read from its `words(&[...])` lines. */
function rustTwenty(site, shot) {
  const source = readFileSync(join(REPO, 'benches/support/twenty_commands.rs'), 'utf8');
  const lists = [...source.matchAll(/words\(&\[(.*)\]\),?\s*$/gm)].map((m) => m[1]);
  return lists.map((list) =>
    [...list.matchAll(/&url\("([^"]*)"\)|"([^"]*)"|\bshot\b/g)].map((w) =>
      w[1] !== undefined ? `${site}${w[1]}` : w[2] !== undefined ? w[2] : shot,
    ),
  );
}

function selfCheck() {
  const site = 'http://127.0.0.1:1';
  const ours = twenty(site, '/tmp/shot.png').map((s) => s.cli);
  const theirs = rustTwenty(site, '/tmp/shot.png');
  const problems = [];
  if (ours.length !== 20) problems.push(`the session has ${ours.length} commands, not 20`);
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
    problems.push(
      `the 20 commands differ from benches/support/twenty_commands.rs:\n  here: ${JSON.stringify(ours)}\n  rust: ${JSON.stringify(theirs)}`,
    );
  }
  for (const s of [...twenty(site, 'x'), ...warmCommands(site, 'x')]) {
    if (typeof s.pw !== 'function' || !Array.isArray(s.cli)) problems.push(`a step lacks cli or pw: ${JSON.stringify(s.cli)}`);
  }
  const lock = JSON.parse(readFileSync(join(PLAYWRIGHT_DIR, 'package-lock.json'), 'utf8'));
  const pinned = JSON.parse(readFileSync(join(PLAYWRIGHT_DIR, 'package.json'), 'utf8')).dependencies['playwright-core'];
  if (!/^\d+\.\d+\.\d+$/.test(pinned)) problems.push(`playwright-core is not pinned to an exact version: ${pinned}`);
  if (lock.packages?.['node_modules/playwright-core']?.version !== pinned) problems.push('package-lock.json does not match package.json');
  if (problems.length) {
    console.error(`side_by_side: ${problems.join('\n')}`);
    process.exit(1);
  }
  console.log('side_by_side: self-check passed (20 commands match benches/support, playwright-core pinned)');
}

// ---------------------------------------------------------------------------------------------
// Options

function parseArgs(argv) {
  const o = {
    chromes: DEFAULT_CHROMES,
    iter: Number(process.env.ABX_SBS_ITER ?? 7),
    repeat: Number(process.env.ABX_SBS_REPEAT ?? 5),
    defaultRow: true,
  };
  const value = (i) => {
    if (i + 1 >= argv.length) fail(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--abx': o.abx = resolve(value(i++)); break;
      case '--upstream': o.upstream = resolve(value(i++)); break;
      case '--fixtures': o.fixtures = resolve(value(i++)); break;
      case '--chrome': o.chromes = value(i++).split(',').filter(Boolean); break;
      case '--iter': o.iter = Number(value(i++)); break;
      case '--repeat': o.repeat = Number(value(i++)); break;
      case '--no-default': o.defaultRow = false; break;
      case '--command': o.command = value(i++); break;
      case '--out': o.out = resolve(value(i++)); break;
      case '--self-check': o.selfCheck = true; break;
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown option ${a}\n\n${USAGE}`);
    }
  }
  if (o.selfCheck) return o;
  for (const k of ['abx', 'upstream', 'fixtures']) if (!o[k]) fail(`--${k} is required\n\n${USAGE}`);
  for (const k of ['abx', 'upstream', 'fixtures']) if (!existsSync(o[k])) fail(`--${k} ${o[k]}: no such file`);
  for (const c of o.chromes) if (!existsSync(c)) fail(`Chrome binary ${c}: no such file`);
  if (!(o.iter >= 1) || !(o.repeat >= 1)) fail('--iter and --repeat must be at least 1');
  return o;
}

function fail(message) {
  console.error(`side_by_side: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Timing a CLI invocation

class Spawner {
  constructor() {
    this.child = spawn('python3', [join(HERE, 'spawner.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.child.stdout });
    this.waiting = [];
    this.lines.on('line', (line) => this.waiting.shift()?.(JSON.parse(line)));
    this.child.on('exit', (code) => {
      for (const w of this.waiting.splice(0)) w({ rc: 127, ms: 0, stdout: '', stderr: `spawner exited (${code})` });
    });
  }

  run(argv, env, cwd, timeout = 60) {
    return new Promise((done) => {
      this.waiting.push(done);
      this.child.stdin.write(JSON.stringify({ argv, env, cwd, timeout }) + '\n');
    });
  }

  close() {
    this.child.stdin.end();
  }
}

// ---------------------------------------------------------------------------------------------
// The three runners

class CliRunner {
  constructor(name, bin, spawner, dir, chrome, marker) {
    this.name = name;
    this.bin = bin;
    this.spawner = spawner;
    this.marker = marker;
    this.failures = [];
    this.dirs = { home: join(dir, 'home'), sock: join(dir, 's'), tmp: join(dir, 'tmp'), cwd: join(dir, 'cwd') };
    for (const d of Object.values(this.dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
    this.env = {
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      TERM: 'dumb',
      NO_COLOR: '1',
      HOME: this.dirs.home,
      TMPDIR: this.dirs.tmp,
      AGENT_BROWSER_SOCKET_DIR: this.dirs.sock,
      AGENT_BROWSER_ARGS: CHROME_FLAGS.join(','),
      AGENT_BROWSER_NO_VERSION_CHECK: '1',
      [MARKER_VAR]: marker,
    };
    // null: the CLI's own default (the "default settings" row).
    if (chrome) this.env.AGENT_BROWSER_EXECUTABLE_PATH = chrome;
  }

  /** Runs one command; returns its time at the shell in ms (a failure is recorded, not thrown). */
  async run(args, session = 'sbs') {
    return (await this.runFull(args, session)).ms;
  }

  /** abx only: the command with --json, and the daemon's own `lifecycle.timings.executeMs`. */
  async executeMs(args) {
    const r = await this.runFull(['--json', ...args]);
    try {
      return JSON.parse(r.stdout).data.lifecycle.timings.executeMs;
    } catch {
      return NaN;
    }
  }

  async runFull(args, session = 'sbs') {
    const r = await this.spawner.run([this.bin, ...args], { ...this.env, AGENT_BROWSER_SESSION: session }, this.dirs.cwd);
    if (r.rc !== 0) {
      const why = (r.stderr || r.stdout).trim().split('\n').slice(-2).join(' | ');
      this.failures.push(`${args.join(' ')}: rc ${r.rc}: ${why}`);
      process.stderr.write(`  ${this.name} ${args.join(' ')} failed (rc ${r.rc}): ${why}\n`);
    }
    return r;
  }

  async coldOpen(url) {
    const open = await this.run(['open', url], 'cold');
    const browser = browserOf(this.marker);
    const close = await this.run(['close'], 'cold');
    return { open, close, browser };
  }

  async start(url) {
    await this.run(['open', url]);
  }

  async step(s) {
    return this.run(s.cli);
  }

  async stop() {
    await this.run(['close', '--all']);
  }
}

class PlaywrightRunner {
  constructor(chromium, chrome, marker) {
    this.name = 'playwright';
    this.chromium = chromium;
    this.chrome = chrome;
    this.marker = marker;
    this.failures = [];
  }

  launch() {
    return this.chromium.launch({
      executablePath: this.chrome,
      headless: true,
      args: CHROME_FLAGS,
      env: { ...process.env, [MARKER_VAR]: this.marker },
    });
  }

  async timed(label, fn) {
    const started = performance.now();
    try {
      await fn();
    } catch (err) {
      const why = String(err.message ?? err).split('\n')[0];
      this.failures.push(`${label}: ${why}`);
      process.stderr.write(`  playwright ${label} failed: ${why}\n`);
    }
    return performance.now() - started;
  }

  async coldOpen(url) {
    let browser;
    const open = await this.timed('cold open', async () => {
      browser = await this.launch();
      const page = await browser.newPage();
      await page.goto(url);
    });
    const found = browserOf(this.marker);
    const close = await this.timed('close', () => browser?.close());
    return { open, close, browser: found };
  }

  async start(url) {
    this.browser = await this.launch();
    this.page = await this.browser.newPage();
    await this.page.goto(url);
  }

  async step(s) {
    return this.timed(s.cli.join(' '), () => s.pw(this.page));
  }

  async stop() {
    await this.browser?.close();
  }
}

/** The browser process (argv[0]) of a runner, found by its marker: the one without --type=. */
function browserOf(marker) {
  for (const pid of markedPids(marker)) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
      if (/chrom/i.test(argv[0]) && !argv.some((a) => a.startsWith('--type='))) return argv[0];
    } catch {
      /* gone */
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Statistics and formatting

function quantile(samples, q) {
  const s = [...samples].sort((a, b) => a - b);
  if (!s.length) return NaN;
  if (q === 0.5) {
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}
const p50 = (s) => quantile(s, 0.5);
const p90 = (s) => quantile(s, 0.9);
const fmt = (v) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : '–');
// Whole-ms figures (abx's executeMs) keep one decimal only where a median falls between two.
const whole = (v) => (Number.isFinite(v) ? String(Math.round(v * 10) / 10) : '–');
const both = (s) => `${fmt(p50(s))} / ${fmt(p90(s))}`;
// Below 0.1 ms the other side made no round trip (Playwright's page.url() is a client-side copy).
const ratio = (a, b) => (!Number.isFinite(a) || !Number.isFinite(b) ? '–' : b < 0.1 ? 'no round trip' : `${(a / b).toFixed(2)}×`);
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
const rotate = (list, i) => list.slice(i % list.length).concat(list.slice(0, i % list.length));

function versionOf(bin, args = ['--version']) {
  try {
    return execFileSync(bin, args, {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH, AGENT_BROWSER_NO_VERSION_CHECK: '1' },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split('\n')[0];
  } catch {
    return 'unknown';
  }
}

function startFixtures(bin) {
  return new Promise((done, reject) => {
    const child = spawn(bin, ['--port', '0'], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'inherit'] });
    const timer = setTimeout(() => reject(new Error('the fixture server printed no origin within 10 s')), 10_000);
    child.on('error', reject);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const origin = line.trim();
      if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(origin)) reject(new Error(`unexpected first line from the fixture server: ${line}`));
      else done({ child, origin });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The run

async function loadPlaywright() {
  const entry = join(PLAYWRIGHT_DIR, 'node_modules/playwright-core/index.mjs');
  if (!existsSync(entry)) {
    fail('playwright-core is not installed: run benches/side_by_side/run.sh (it runs npm ci in benches/playwright)');
  }
  const pw = await import(pathToFileURL(entry).href);
  const version = JSON.parse(readFileSync(join(PLAYWRIGHT_DIR, 'node_modules/playwright-core/package.json'), 'utf8')).version;
  return { chromium: pw.chromium, version };
}

/** Cold open and close, all runners alternating, `iter` times. */
async function coldPhase(runners, url, o, label) {
  const res = Object.fromEntries(runners.map((r) => [r.name, { open: [], close: [], browser: null }]));
  for (let i = 0; i < o.iter; i++) {
    for (const r of rotate(runners, i)) {
      const { open, close, browser } = await r.coldOpen(url);
      res[r.name].open.push(open);
      res[r.name].close.push(close);
      res[r.name].browser ??= browser;
    }
    process.stderr.write(`  cold open ${label}: ${i + 1}/${o.iter}\n`);
  }
  return res;
}

/** The warm phases on one Chrome binary: the 20-command session, then single commands. */
async function warmPhase(runners, site, o, label, shotDir) {
  const session = Object.fromEntries(runners.map((r) => [r.name, { total: [], steps: Array.from({ length: 20 }, () => []) }]));
  // abx's own account of each step: the daemon's execute time, from a separate --json pass.
  const inDaemon = Array.from({ length: 20 }, () => []);
  const singleInDaemon = {};
  const single = Object.fromEntries(runners.map((r) => [r.name, {}]));
  for (const r of runners) await r.start(`${site}/static.html`);
  // The session ends on /animated.html, whose animation keeps its Chrome busy (~0.3 of a core
  // here): each runner goes back to the idle page, untimed, so the next runner is measured on a
  // machine that is not also painting the other two's animations.
  const idle = { cli: ['open', `${site}/static.html`], pw: (p) => p.goto(`${site}/static.html`) };
  for (let i = 0; i < o.iter; i++) {
    for (const r of rotate(runners, i)) {
      const steps = twenty(site, join(shotDir, `${r.name}-session.png`));
      let total = 0;
      for (let n = 0; n < steps.length; n++) {
        const ms = await r.step(steps[n]);
        session[r.name].steps[n].push(ms);
        total += ms;
      }
      session[r.name].total.push(total);
      await r.step(idle);
    }
    const abx = runners.find((r) => r.name === 'abx');
    for (const [n, step] of twenty(site, join(shotDir, 'abx-json.png')).entries()) inDaemon[n].push(await abx.executeMs(step.cli));
    await abx.step(idle);
    for (const r of rotate(runners, i)) {
      for (const c of warmCommands(site, join(shotDir, `${r.name}-warm.png`))) {
        await r.step(c.setup);
        const got = (single[r.name][c.name] ??= []);
        for (let k = 0; k < o.repeat; k++) got.push(await r.step(c));
        if (r.name === 'abx') (singleInDaemon[c.name] ??= []).push(await r.executeMs(c.cli));
      }
    }
    process.stderr.write(`  warm ${label}: ${i + 1}/${o.iter}\n`);
  }
  for (const r of runners) await r.stop();
  return { session, single, inDaemon, singleInDaemon };
}

async function floorPhase(spawner, clis, o) {
  const floor = { '/bin/true': [] };
  for (const c of clis) floor[`${c.name} --version`] = [];
  for (let i = 0; i < o.iter * o.repeat; i++) {
    floor['/bin/true'].push((await spawner.run(['/bin/true'], { PATH: process.env.PATH }, '/')).ms);
    for (const c of clis) floor[`${c.name} --version`].push(await c.run(['--version']));
  }
  return floor;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.selfCheck) return selfCheck();
  const { chromium, version: pwVersion } = await loadPlaywright();
  const root = mkdtempSync('/tmp/abxs-');
  const marker = `abxs-${process.pid}-${Date.now().toString(36)}`;
  const markers = Object.fromEntries(RUNNERS.map((r) => [r, `${marker}-${r}`]));
  const spawner = new Spawner();
  let fixtures;
  let finished = false;
  const cleanup = async () => {
    spawner.close();
    fixtures?.child.kill('SIGTERM');
    const left = [];
    for (const m of Object.values(markers)) left.push(...(await sweep(m)));
    rmSync(root, { recursive: true, force: true });
    return left;
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, async () => {
      if (finished) return;
      finished = true;
      await cleanup();
      process.exit(130);
    });
  }

  fixtures = await startFixtures(o.fixtures);
  const site = fixtures.origin;
  const started = new Date();
  const loads = [['start', load()]];
  const versions = {
    abx: versionOf(o.abx),
    upstream: versionOf(o.upstream),
    chromes: Object.fromEntries(o.chromes.map((c) => [c, versionOf(c)])),
  };
  const runnersFor = (chrome, tag) => [
    new CliRunner('abx', o.abx, spawner, join(root, `a${tag}`), chrome, markers.abx),
    new CliRunner('upstream', o.upstream, spawner, join(root, `u${tag}`), chrome, markers.upstream),
    new PlaywrightRunner(chromium, chrome ?? HEADLESS_SHELL, markers.playwright),
  ];
  const failures = [];
  const collect = (runners) => {
    for (const r of runners) for (const f of r.failures.splice(0)) failures.push(`${r.name}: ${f}`);
  };

  const perChrome = [];
  for (const [n, chrome] of o.chromes.entries()) {
    const runners = runnersFor(chrome, n);
    process.stderr.write(`== ${chrome}\n`);
    const cold = await coldPhase(runners, `${site}/page1.html`, o, chrome);
    loads.push([`after cold open on ${chrome}`, load()]);
    const shots = join(root, `shots${n}`);
    mkdirSync(shots);
    const warm = await warmPhase(runners, site, o, chrome, shots);
    loads.push([`after the warm phases on ${chrome}`, load()]);
    collect(runners);
    perChrome.push({ chrome, cold, ...warm });
  }
  let defaults = null;
  if (o.defaultRow) {
    process.stderr.write('== default settings\n');
    const runners = runnersFor(null, 'd');
    defaults = await coldPhase(runners, `${site}/page1.html`, o, 'default settings');
    loads.push(['after cold open with default settings', load()]);
    collect(runners);
  }
  const floorClis = runnersFor(o.chromes[0], 'f').slice(0, 2);
  const floor = await floorPhase(spawner, floorClis, o);
  collect(floorClis);
  loads.push(['end', load()]);

  // Everything was closed gracefully: whatever still carries a marker after a grace period leaked.
  let leaked = [];
  for (let t = 0; t < 50; t++) {
    leaked = Object.entries(markers).flatMap(([r, m]) => markedPids(m).map((pid) => ({ r, pid, comm: comm(pid) })));
    if (!leaked.length) break;
    await sleep(100);
  }
  finished = true;
  await cleanup();

  const md = report({
    o, site, started, loads, versions, pwVersion, perChrome, defaults, floor, leaked, failures,
  });
  process.stdout.write(md);
  if (o.out) writeFileSync(o.out, md);
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

// ---------------------------------------------------------------------------------------------
// The Markdown section

function report({ o, started, loads, versions, pwVersion, perChrome, defaults, floor, leaked, failures }) {
  const out = [];
  const line = (s = '') => out.push(s);
  const short = (c) => (c === HEADLESS_SHELL ? 'headless shell' : c === '/usr/bin/chromium' ? 'chromium (full)' : c);
  line(`## Side by side in one run: abx, upstream 0.41.2, Playwright ${pwVersion} (issue 15 item 5)`);
  line();
  line(`Run ${started.toISOString().replace(/\.\d+Z$/, 'Z')}, ${cpus().length} vCPU. Command: \`${o.command ?? 'node benches/side_by_side/sbs.mjs'}\`` +
    ` (\`benches/side_by_side/sbs.mjs\`). abx: ${versions.abx} (\`${o.abx}\`); upstream: ${versions.upstream};` +
    ` playwright-core ${pwVersion} in-process on node ${process.version}.`);
  line(`Chrome: ${Object.entries(versions.chromes).map(([c, v]) => `\`${c}\` (${v})`).join(', ')}; flags for all three: \`${CHROME_FLAGS.join(' ')}\`.`);
  line(`${o.iter} iteration(s), the three runners alternating (order rotated every iteration); ${o.repeat} samples per warm command per iteration.` +
    ` Figures are p50 / p90 in ms. CLI commands are timed at the shell (spawn → exit) with \`AGENT_BROWSER_EXECUTABLE_PATH\` and` +
    ` \`AGENT_BROWSER_ARGS\` set, so each sends a \`launch\` first; Playwright's are the awaited calls in this process.`);
  line(`Load average (1, 5, 15 min): ${loads.map(([at, l]) => `${l} at ${at}`).join('; ')}.`);
  line();

  line('### Cold `open` (CLIs: spawn the daemon, launch Chrome, navigate; Playwright: launch + newPage + goto) and `close`');
  line();
  line('| Chrome | abx | upstream 0.41.2 | Playwright | abx ÷ upstream | abx ÷ Playwright |');
  line('|---|---|---|---|---|---|');
  const coldRow = (label, c) =>
    line(`| ${label} | ${both(c.abx.open)} | ${both(c.upstream.open)} | ${both(c.playwright.open)} | ${ratio(p50(c.abx.open), p50(c.upstream.open))} | ${ratio(p50(c.abx.open), p50(c.playwright.open))} |`);
  for (const p of perChrome) coldRow(short(p.chrome), p.cold);
  if (defaults) {
    const b = (r) => (defaults[r].browser ? `\`${defaults[r].browser}\`` : 'unknown');
    coldRow(`default settings (abx: ${b('abx')}; upstream: ${b('upstream')}; Playwright: ${b('playwright')})`, defaults);
  }
  for (const p of perChrome) {
    line(`| \`close\` / browser.close(), ${short(p.chrome)} | ${both(p.cold.abx.close)} | ${both(p.cold.upstream.close)} | ${both(p.cold.playwright.close)} | ${ratio(p50(p.cold.abx.close), p50(p.cold.upstream.close))} | ${ratio(p50(p.cold.abx.close), p50(p.cold.playwright.close))} |`);
  }
  line();

  line('### The 20-command session (benches/support/twenty_commands.rs), warm');
  line();
  line('| Chrome | abx | upstream 0.41.2 | Playwright | abx ÷ upstream | abx ÷ Playwright |');
  line('|---|---|---|---|---|---|');
  for (const p of perChrome) {
    const s = p.session;
    line(`| ${short(p.chrome)} | ${both(s.abx.total)} | ${both(s.upstream.total)} | ${both(s.playwright.total)} | ${ratio(p50(s.abx.total), p50(s.upstream.total))} | ${ratio(p50(s.abx.total), p50(s.playwright.total))} |`);
  }
  line();
  line('Per step, p50 ms: abx / upstream / Playwright at the shell (or in-process), and the part of abx\'s time spent' +
    ' executing in its daemon (`lifecycle.timings.executeMs` of a separate `--json` pass, whole ms; the rest is the CLI\'s start,' +
    ' the `launch` and command round trips and exit):');
  line();
  line(`| # | command | ${perChrome.map((p) => `${short(p.chrome)} | abx in daemon`).join(' | ')} |`);
  line(`|---|---|${perChrome.map(() => '---|---').join('|')}|`);
  const steps = twenty('', '<file>');
  steps.forEach((s, n) => {
    const cells = perChrome.map((p) => `${RUNNERS.map((r) => fmt(p50(p.session[r].steps[n]))).join(' / ')} | ${whole(p50(p.inDaemon[n]))}`);
    line(`| ${n + 1} | \`${s.cli.join(' ')}\` | ${cells.join(' | ')} |`);
  });
  line();

  line('### Warm single commands');
  line();
  line('| command | Chrome | abx | upstream 0.41.2 | Playwright | abx ÷ upstream | abx ÷ Playwright | abx in daemon (p50, whole ms) |');
  line('|---|---|---|---|---|---|---|---|');
  for (const c of warmCommands('', '<file>')) {
    for (const p of perChrome) {
      const s = (r) => p.single[r][c.name];
      line(`| \`${c.cli.join(' ')}\` | ${short(p.chrome)} | ${both(s('abx'))} | ${both(s('upstream'))} | ${both(s('playwright'))} | ${ratio(p50(s('abx')), p50(s('upstream')))} | ${ratio(p50(s('abx')), p50(s('playwright')))} | ${whole(p50(p.singleInDaemon[c.name] ?? []))} |`);
    }
  }
  line();
  line('What every CLI command pays before its own work: the spawn (`/bin/true` through the same spawner) and each CLI' +
    ' starting and exiting without a daemon (`--version`):');
  line();
  line('| floor | p50 / p90 |');
  line('|---|---|');
  for (const [name, samples] of Object.entries(floor)) line(`| \`${name}\` | ${both(samples)} |`);
  line();

  line('### Targets (issue 15)');
  line();
  const verdict = (ok) => (ok ? '**met**' : '**missed**');
  if (defaults) {
    const r = p50(defaults.abx.open) / p50(defaults.upstream.open);
    line(`- Cold \`open\`, headless, default settings ≤ 0.35× upstream: ${verdict(r <= 0.35)} (${r.toFixed(2)}×: ${fmt(p50(defaults.abx.open))} against ${fmt(p50(defaults.upstream.open))} ms).`);
  }
  for (const p of perChrome) {
    const s = p.session;
    const ru = p50(s.abx.total) / p50(s.upstream.total);
    const rp = p50(s.abx.total) / p50(s.playwright.total);
    line(`- 20-command session ≤ 0.4× upstream, ${short(p.chrome)}: ${verdict(ru <= 0.4)} (${ru.toFixed(2)}×); ≤ 0.8× Playwright in-process: ${verdict(rp <= 0.8)} (${rp.toFixed(2)}×).`);
  }
  for (const p of perChrome) {
    const u = p50(p.single.abx['get url']);
    const c = p50(p.single.abx.click);
    line(`- \`get url\` ≤ 1.5 ms p50, ${short(p.chrome)}: ${verdict(u <= 1.5)} (${fmt(u)} ms); \`click\` ≤ 10 ms p50: ${verdict(c <= 10)} (${fmt(c)} ms).`);
  }
  line();
  line(leaked.length
    ? `Processes left after the graceful closes (ended by pid): ${leaked.map((l) => `${l.r} ${l.pid} ${l.comm}`).join(', ')}.`
    : 'Processes left after the graceful closes: none (every process a runner started carries its marker; none was still alive within 5 s of the last close).');
  if (failures.length) {
    line();
    line(`Failed commands (${failures.length}; their times are still in the samples):`);
    for (const f of failures.slice(0, 20)) line(`- ${f}`);
  }
  line();
  return out.join('\n');
}

await main();
