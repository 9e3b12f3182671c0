#!/usr/bin/env node
// Large pages side by side in one run (issue 38 part 3): abx, upstream agent-browser 0.41.2 and
// Playwright in-process, on the fixture server's generated /large/ pages, one Chrome binary
// (default the headless shell). Start it through `benches/side_by_side/run.sh --large`, which
// builds the binaries and installs the pinned playwright-core, or directly:
//
//   node benches/side_by_side/large.mjs --abx B --upstream B --fixtures B [options]
//
// Three parts, each printed as a Markdown table:
// 1. Per page and size, warm, the runners alternating (order rotated every iteration), medians:
//    `snapshot` right after the page was (re)opened (the open untimed), `snapshot` again on the
//    unchanged page, `snapshot -i`, `snapshot -c`, `get url`, `get text body`, `read`,
//    `find role <role> text --name <name>`, and `screenshot --full` of /large/tall (30,000 px).
//    Playwright's equivalents: locator('body').ariaSnapshot() for `snapshot` (and again),
//    page.ariaSnapshot({mode: 'ai'}) for `-i`, page.url(), innerText('body'),
//    getByRole(role, {name}).first().textContent(), screenshot({fullPage: true}); none for `-c`
//    and `read` ('–').
// 2. The scaling curve: `snapshot` of /large/list from about 1,000 to 50,000 DOM nodes (elements
//    and text nodes, counted in the page), all three runners.
// 3. abx's daemon RSS (VmRSS and VmHWM from /proc/<pid>/status) across --rss-count snapshots of
//    the largest list page, sampled every --rss-every snapshots; every --rss-change-every-th
//    snapshot follows a change to the page (an untimed `eval`), so both the full read and the
//    unchanged page's answer are in the run.
//
// Every process a runner starts carries ABX_COMPAT_RUN=<marker>; whatever is still alive after the
// graceful closes is reported and ended by pid (benches/compat/lib/proc.mjs).

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
const RUNNERS = ['abx', 'upstream', 'playwright'];

const USAGE = `usage: node benches/side_by_side/large.mjs --abx B --upstream B --fixtures B [options]

  --chrome <bin>        Chrome binary (default /usr/bin/chromium-headless-shell)
  --iter <n>            iterations, runners rotated each time (default $ABX_SBS_ITER or 3)
  --repeat <n>          samples per command per iteration (default $ABX_SBS_REPEAT or 2)
  --pages <list>        page sizes, e.g. list:1000,list:3000 (default: every page at two sizes)
  --curve <list>        list sizes (rows) of the scaling curve (default 110,275,550,1100,2750,5550: about 1,000 to 50,000 DOM nodes)
  --rss-count <n>       abx snapshots of the largest list page for the RSS part (default 1000; 0 skips)
  --rss-rows <n>        rows of that list page (default 5550, about 50,000 DOM nodes)
  --rss-every <n>       sample RSS every n snapshots (default 50)
  --rss-change-every <n> change the page before every n-th snapshot (default 10; 0: never)
  --only <parts>        pages,curve,rss (default all three)
  --command <text>      the command line to print
  --out <file>          also write the Markdown to <file>`;

/** The pages at their sizes, with the `find` each uses (a role and a name near the top). */
const PAGE_FIND = {
  list: ['button', 'Archive'],
  grid: ['button', 'Open'],
  shop: ['button', 'Apply filters'],
  article: ['link', 'Page one'],
  shadow: ['button', 'Settings'],
  frames: ['button', 'Top button'],
};
const DEFAULT_PAGES = [
  'list:1000', 'list:3000', 'grid:250', 'grid:1000', 'shop:300', 'shop:1200',
  'article:125', 'article:500', 'shadow:125', 'shadow:500', 'frames:5', 'frames:20',
];
const TALL_PX = 30000;
/** The frame pages' first snapshot against Playwright's snapshot that includes the frames. */
const FRAMES_STEP = 'snapshot (Playwright: ariaSnapshot({mode: \'ai\'}), frames included)';

function parseArgs(argv) {
  const o = {
    chrome: '/usr/bin/chromium-headless-shell',
    iter: Number(process.env.ABX_SBS_ITER ?? 3),
    repeat: Number(process.env.ABX_SBS_REPEAT ?? 2),
    pages: DEFAULT_PAGES,
    curve: [110, 275, 550, 1100, 2750, 5550],
    rssCount: 1000,
    rssRows: 5550,
    rssEvery: 50,
    rssChangeEvery: 10,
    only: new Set(['pages', 'curve', 'rss']),
  };
  const value = (i) => {
    if (i + 1 >= argv.length) fail(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  const list = (s) => s.split(',').filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--abx': o.abx = resolve(value(i++)); break;
      case '--upstream': o.upstream = resolve(value(i++)); break;
      case '--fixtures': o.fixtures = resolve(value(i++)); break;
      case '--chrome': o.chrome = value(i++); break;
      case '--iter': o.iter = Number(value(i++)); break;
      case '--repeat': o.repeat = Number(value(i++)); break;
      case '--pages': o.pages = list(value(i++)); break;
      case '--curve': o.curve = list(value(i++)).map(Number); break;
      case '--rss-count': o.rssCount = Number(value(i++)); break;
      case '--rss-rows': o.rssRows = Number(value(i++)); break;
      case '--rss-every': o.rssEvery = Number(value(i++)); break;
      case '--rss-change-every': o.rssChangeEvery = Number(value(i++)); break;
      case '--only': o.only = new Set(list(value(i++))); break;
      case '--command': o.command = value(i++); break;
      case '--out': o.out = resolve(value(i++)); break;
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown option ${a}\n\n${USAGE}`);
    }
  }
  for (const k of ['abx', 'upstream', 'fixtures']) if (!o[k] || !existsSync(o[k])) fail(`--${k}: missing or no such file\n\n${USAGE}`);
  if (!existsSync(o.chrome)) fail(`Chrome binary ${o.chrome}: no such file`);
  for (const p of o.pages) if (!PAGE_FIND[p.split(':')[0]]) fail(`unknown page ${p} (one of ${Object.keys(PAGE_FIND).join(', ')})`);
  if (!(o.iter >= 1) || !(o.repeat >= 1)) fail('--iter and --repeat must be at least 1');
  return o;
}

function fail(message) {
  console.error(`side_by_side/large: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Runners (the CLIs through spawner.py, timed like a shell; Playwright in this process)

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

  run(argv, env, cwd, timeout = 120) {
    return new Promise((done) => {
      this.waiting.push(done);
      this.child.stdin.write(JSON.stringify({ argv, env, cwd, timeout }) + '\n');
    });
  }

  close() {
    this.child.stdin.end();
  }
}

class CliRunner {
  constructor(name, bin, spawner, dir, chrome, marker) {
    this.name = name;
    this.bin = bin;
    this.spawner = spawner;
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
      AGENT_BROWSER_EXECUTABLE_PATH: chrome,
      AGENT_BROWSER_SESSION: 'large',
      [MARKER_VAR]: marker,
    };
  }

  async run(args) {
    const r = await this.spawner.run([this.bin, ...args], this.env, this.dirs.cwd);
    if (r.rc !== 0) {
      const why = (r.stderr || r.stdout).trim().split('\n').slice(-2).join(' | ');
      this.failures.push(`${args.join(' ')}: rc ${r.rc}: ${why}`);
      process.stderr.write(`  ${this.name} ${args.join(' ')} failed (rc ${r.rc}): ${why}\n`);
    }
    return r;
  }

  async time(step) {
    if (!step.cli) return NaN;
    return (await this.run(step.cli)).ms;
  }

  daemonPid() {
    try {
      return Number(readFileSync(join(this.dirs.sock, 'large.pid'), 'utf8').trim());
    } catch {
      return null;
    }
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

  async start() {
    this.browser = await this.chromium.launch({
      executablePath: this.chrome,
      headless: true,
      args: CHROME_FLAGS,
      env: { ...process.env, [MARKER_VAR]: this.marker },
    });
    this.page = await this.browser.newPage();
  }

  async time(step) {
    if (!step.pw) return NaN;
    const started = performance.now();
    try {
      await step.pw(this.page);
    } catch (err) {
      const why = String(err.message ?? err).split('\n')[0];
      this.failures.push(`${step.name}: ${why}`);
      process.stderr.write(`  playwright ${step.name} failed: ${why}\n`);
    }
    return performance.now() - started;
  }

  async stop() {
    await this.browser?.close();
  }
}

// ---------------------------------------------------------------------------------------------
// What is measured

const open = (url) => ({ name: 'open', cli: ['open', url], pw: (p) => p.goto(url) });

/** The timed steps on one page; `setup` runs untimed before each sample. */
function pageSteps(url, kind) {
  const [role, name] = PAGE_FIND[kind];
  const snapshot = { cli: ['snapshot'], pw: (p) => p.locator('body').ariaSnapshot() };
  // Playwright's body snapshot shows an iframe as a bare `- iframe`: of its snapshots, only the
  // `ai` mode reads the frames' documents, as abx's and upstream's `snapshot` do. On the frame
  // pages Playwright's is timed both ways (the CLIs' `snapshot` once, in the row above); the
  // target is read against the one with the frames.
  const withFrames = kind === 'frames'
    ? [{ name: FRAMES_STEP, setup: open(url), pw: (p) => p.ariaSnapshot({ mode: 'ai' }) }]
    : [];
  return [
    { name: 'snapshot', setup: open(url), ...snapshot },
    ...withFrames,
    // The page as the previous step left it: unchanged since the last snapshot.
    { name: 'snapshot (unchanged, again)', setup: { name: 'snapshot', ...snapshot }, ...snapshot },
    { name: 'snapshot -i', cli: ['snapshot', '-i'], pw: (p) => p.ariaSnapshot({ mode: 'ai' }) },
    { name: 'snapshot -c', cli: ['snapshot', '-c'] },
    { name: 'get url', cli: ['get', 'url'], pw: (p) => p.url() },
    { name: 'get text body', cli: ['get', 'text', 'body'], pw: (p) => p.innerText('body') },
    { name: 'read', cli: ['read'] },
    {
      name: `find role ${role} text --name "${name}"`,
      cli: ['find', 'role', role, 'text', '--name', name],
      pw: (p) => p.getByRole(role, { name }).first().textContent(),
    },
  ];
}

function tallSteps(url, shotFor) {
  return [
    {
      name: `screenshot --full (${TALL_PX.toLocaleString('en')} px)`,
      setup: open(url),
      cli: (r) => ['screenshot', '--full', shotFor(r)],
      pw: (p, r) => p.screenshot({ path: shotFor(r), fullPage: true }),
    },
  ];
}

/** Elements and text nodes of the document (light DOM), counted in the page. */
const COUNT_NODES = `(() => { const w = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT); let n = 0; while (w.nextNode()) n++; return n; })()`;

async function timeStep(r, step) {
  const bound = {
    name: step.name,
    cli: typeof step.cli === 'function' ? step.cli(r.name) : step.cli,
    pw: step.pw && ((p) => step.pw(p, r.name)),
  };
  return r.time(bound);
}

async function measurePage(runners, url, steps, o, label) {
  const res = Object.fromEntries(runners.map((r) => [r.name, {}]));
  for (let i = 0; i < o.iter; i++) {
    for (const r of rotate(runners, i)) {
      await timeStep(r, open(url));
      for (const step of steps) {
        const got = (res[r.name][step.name] ??= []);
        for (let k = 0; k < o.repeat; k++) {
          // A runner with nothing to time in the step skips its setup too.
          if (step.setup && (r.name === 'playwright' ? step.pw : step.cli)) await timeStep(r, step.setup);
          got.push(await timeStep(r, step));
        }
      }
    }
    process.stderr.write(`  ${label}: ${i + 1}/${o.iter}\n`);
  }
  return res;
}

/** What the RSS part has sampled so far: printed even when the run is interrupted. */
const partial = { rss: null, versions: null };

async function rssPhase(abx, url, o) {
  await abx.run(['open', url]);
  const pid = abx.daemonPid();
  const status = () => {
    try {
      const text = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (key) => Number(text.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
      return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
    } catch {
      return { rss: NaN, hwm: NaN };
    }
  };
  const samples = [{ at: 0, ms: NaN, ...status() }];
  let times = [];
  const started = performance.now();
  partial.rss = { pid, samples, started, nodes: NaN };
  for (let n = 1; n <= o.rssCount; n++) {
    if (o.rssChangeEvery > 0 && n % o.rssChangeEvery === 0) {
      await abx.run(['eval', `document.querySelector('h1').textContent = 'List, change ${n}'`]);
    }
    times.push((await abx.run(['snapshot'])).ms);
    if (n % o.rssEvery === 0 || n === o.rssCount) {
      samples.push({ at: n, ms: p50(times), ...status() });
      times = [];
      process.stderr.write(`  rss: ${n}/${o.rssCount} VmRSS ${samples.at(-1).rss} kB\n`);
    }
  }
  return { pid, samples, minutes: (performance.now() - started) / 60000 };
}

// ---------------------------------------------------------------------------------------------
// Statistics and formatting

function quantile(samples, q) {
  const s = samples.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  if (q === 0.5) {
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
}
const p50 = (s) => quantile(s ?? [], 0.5);
const fmt = (v) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v < 1000 ? v.toFixed(1) : v.toFixed(0)) : '–');
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
    }).trim().split('\n')[0];
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

async function loadPlaywright() {
  const entry = join(PLAYWRIGHT_DIR, 'node_modules/playwright-core/index.mjs');
  if (!existsSync(entry)) fail('playwright-core is not installed: run benches/side_by_side/run.sh --large');
  const pw = await import(pathToFileURL(entry).href);
  const version = JSON.parse(readFileSync(join(PLAYWRIGHT_DIR, 'node_modules/playwright-core/package.json'), 'utf8')).version;
  return { chromium: pw.chromium, version };
}

// ---------------------------------------------------------------------------------------------
// The run

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const { chromium, version: pwVersion } = await loadPlaywright();
  const root = mkdtempSync('/tmp/abxl-');
  const marker = `abxl-${process.pid}-${Date.now().toString(36)}`;
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
      // An interrupted RSS run still reports what it sampled.
      if (partial.rss && partial.rss.samples.length > 1) {
        const rss = { ...partial.rss, minutes: (performance.now() - partial.rss.started) / 60000 };
        const done = rss.samples.at(-1).at;
        const md = report({ o: { ...o, rssCount: done }, started: new Date(), loads: [['interrupted', load()]], versions: partial.versions ?? {}, pwVersion, pages: [], curve: [], rss, failures: [`interrupted by ${sig} after ${done} snapshots`], leaked: [] });
        process.stdout.write(md);
        if (o.out) writeFileSync(o.out, md);
      }
      process.exit(130);
    });
  }

  fixtures = await startFixtures(o.fixtures);
  const site = fixtures.origin;
  const started = new Date();
  const loads = [['start', load()]];
  const shots = join(root, 'shots');
  mkdirSync(shots);
  const shotFor = (r) => join(shots, `${r}-full.png`);
  const runners = [
    new CliRunner('abx', o.abx, spawner, join(root, 'a'), o.chrome, markers.abx),
    new CliRunner('upstream', o.upstream, spawner, join(root, 'u'), o.chrome, markers.upstream),
    new PlaywrightRunner(chromium, o.chrome, markers.playwright),
  ];
  await runners[2].start();
  const versions = { abx: versionOf(o.abx), upstream: versionOf(o.upstream), chrome: versionOf(o.chrome) };
  partial.versions = versions;
  const countNodes = async (url) => {
    await runners[2].page.goto(url);
    // The frames' documents count too: a snapshot reads them.
    let nodes = 0;
    for (const frame of runners[2].page.frames()) nodes += await frame.evaluate(COUNT_NODES);
    return nodes;
  };

  const pages = [];
  if (o.only.has('pages')) {
    for (const spec of o.pages) {
      // kind:n, or frames:n:rows (rows of a list in each frame).
      const [kind, n, rows] = spec.split(':');
      const query = `n=${n}${rows ? `&rows=${rows}` : ''}`;
      const url = `${site}/large/${kind}?${query}`;
      const nodes = await countNodes(url);
      const res = await measurePage(runners, url, pageSteps(url, kind), o, spec);
      pages.push({ kind, n: Number(n), query, nodes, res, steps: pageSteps(url, kind).map((s) => s.name) });
      loads.push([`after ${spec}`, load()]);
    }
    const tall = `${site}/large/tall?n=${TALL_PX}`;
    const steps = tallSteps(tall, shotFor);
    pages.push({ kind: 'tall', n: TALL_PX, nodes: await countNodes(tall), res: await measurePage(runners, tall, steps, o, 'tall'), steps: steps.map((s) => s.name) });
    loads.push(['after tall', load()]);
  }

  const curve = [];
  if (o.only.has('curve')) {
    for (const n of o.curve) {
      const url = `${site}/large/list?n=${n}`;
      const nodes = await countNodes(url);
      const step = { name: 'snapshot', setup: open(url), cli: ['snapshot'], pw: (p) => p.locator('body').ariaSnapshot() };
      curve.push({ n, nodes, res: await measurePage(runners, url, [step], o, `curve ${n}`) });
    }
    loads.push(['after the curve', load()]);
  }

  let rss = null;
  if (o.only.has('rss') && o.rssCount > 0) {
    rss = await rssPhase(runners[0], `${site}/large/list?n=${o.rssRows}`, o);
    rss.nodes = await countNodes(`${site}/large/list?n=${o.rssRows}`);
    loads.push(['after the RSS run', load()]);
  }

  for (const r of runners) await r.stop();
  const failures = runners.flatMap((r) => r.failures.map((f) => `${r.name}: ${f}`));
  let leaked = [];
  for (let t = 0; t < 50; t++) {
    leaked = Object.entries(markers).flatMap(([r, m]) => markedPids(m).map((pid) => `${r} ${pid}`));
    if (!leaked.length) break;
    await sleep(100);
  }
  finished = true;
  await cleanup();

  const md = report({ o, started, loads, versions, pwVersion, pages, curve, rss, failures, leaked });
  process.stdout.write(md);
  if (o.out) writeFileSync(o.out, md);
}

function report({ o, started, loads, versions, pwVersion, pages, curve, rss, failures, leaked }) {
  const out = [];
  const line = (s = '') => out.push(s);
  line(`## Large pages side by side in one run: abx, upstream 0.41.2, Playwright ${pwVersion} (issue 38)`);
  line();
  line(`Run ${started.toISOString().replace(/\.\d+Z$/, 'Z')}, ${cpus().length} vCPU. Command: \`${o.command ?? 'node benches/side_by_side/large.mjs'}\`` +
    ` (\`benches/side_by_side/large.mjs\`). abx: ${versions.abx} (\`${o.abx}\`); upstream: ${versions.upstream}; playwright-core ${pwVersion}` +
    ` in-process on node ${process.version}. Chrome: \`${o.chrome}\` (${versions.chrome}), flags \`${CHROME_FLAGS.join(' ')}\`.`);
  line(`${o.iter} iteration(s), runners rotated each time, ${o.repeat} sample(s) per command per iteration; medians in ms. CLI commands are timed at` +
    ' the shell (spawn → exit), Playwright\'s calls in process. "snapshot" follows an untimed `open` of the page; "again" follows an untimed' +
    ' snapshot of the unchanged page. DOM nodes: elements and text nodes of the document and of its frames\' documents.');
  line(`Load average (1, 5, 15 min): ${loads.map(([at, l]) => `${l} at ${at}`).join('; ')}.`);
  line();
  if (pages.length) {
    line('### Per page');
    line();
    line('| page | DOM nodes | command | abx | upstream 0.41.2 | Playwright | abx ÷ upstream | abx ÷ Playwright |');
    line('|---|---|---|---|---|---|---|---|');
    for (const p of pages) {
      for (const s of p.steps) {
        const v = (r) => p50(p.res[r][s]);
        line(`| \`/large/${p.kind}?${p.query ?? `n=${p.n}`}\` | ${p.nodes.toLocaleString('en')} | \`${s}\` | ${fmt(v('abx'))} | ${fmt(v('upstream'))} | ${fmt(v('playwright'))} | ${ratio(v('abx'), v('upstream'))} | ${ratio(v('abx'), v('playwright'))} |`);
      }
    }
    line();
    line('Targets (issue 38): large pages\' `snapshot` ≤ 0.5× Playwright\'s `ariaSnapshot()`; the unchanged page\'s second snapshot within 2× `get url`:');
    line();
    for (const p of pages.filter((q) => q.steps.includes('snapshot'))) {
      const snap = p50(p.res.abx.snapshot);
      const again = p50(p.res.abx['snapshot (unchanged, again)']);
      const url = p50(p.res.abx['get url']);
      const pw = p50(p.res.playwright.snapshot);
      const ok = (b) => (b ? '**met**' : '**missed**');
      const page = `/large/${p.kind}?${p.query ?? `n=${p.n}`}`;
      if (p.steps.includes(FRAMES_STEP)) {
        const pwF = p50(p.res.playwright[FRAMES_STEP]);
        line(`- \`${page}\`: snapshot ${fmt(snap)} ms = ${ratio(snap, pwF)} Playwright's snapshot with the frames (\`ariaSnapshot({mode: 'ai'})\`) ${ok(snap <= 0.5 * pwF)}` +
          ` (its body snapshot, ${fmt(pw)} ms, leaves the frames' contents out: ${ratio(snap, pw)}); again ${fmt(again)} ms = ${ratio(again, url)} \`get url\` ${ok(again <= 2 * url)}.`);
        continue;
      }
      line(`- \`${page}\`: snapshot ${fmt(snap)} ms = ${ratio(snap, pw)} Playwright ${ok(snap <= 0.5 * pw)}; again ${fmt(again)} ms = ${ratio(again, url)} \`get url\` ${ok(again <= 2 * url)}.`);
    }
    line();
  }
  if (curve.length) {
    line('### Scaling: `snapshot` of `/large/list` by size (Playwright: `locator(\'body\').ariaSnapshot()`)');
    line();
    line('| rows | DOM nodes | abx | upstream 0.41.2 | Playwright | abx ms per 1,000 nodes | abx ÷ Playwright |');
    line('|---|---|---|---|---|---|---|');
    for (const c of curve) {
      const v = (r) => p50(c.res[r].snapshot);
      line(`| ${c.n.toLocaleString('en')} | ${c.nodes.toLocaleString('en')} | ${fmt(v('abx'))} | ${fmt(v('upstream'))} | ${fmt(v('playwright'))} | ${fmt((v('abx') / c.nodes) * 1000)} | ${ratio(v('abx'), v('playwright'))} |`);
    }
    line();
  }
  if (rss) {
    const first = rss.samples[1] ?? rss.samples[0];
    const last = rss.samples.at(-1);
    const nodes = Number.isFinite(rss.nodes) ? `${rss.nodes.toLocaleString('en')} DOM nodes` : 'DOM nodes not counted';
    const peak = Math.max(...rss.samples.map((s) => s.rss).filter(Number.isFinite));
    const growth = last.rss - first.rss;
    line(`### abx daemon memory across ${o.rssCount.toLocaleString('en')} snapshots of \`/large/list?n=${o.rssRows}\` (${nodes})`);
    line();
    const changes = o.rssChangeEvery > 0 ? `every ${o.rssChangeEvery}th snapshot after a change to the page (a full read), the others of the unchanged page` : 'the page never changed';
    line(`Daemon pid ${rss.pid}, \`/proc/<pid>/status\` every ${o.rssEvery} snapshots; ${changes}; ${rss.minutes.toFixed(1)} min in all. VmRSS after the first ${o.rssEvery}: ${first.rss.toLocaleString('en')} kB;` +
      ` after the last: ${last.rss.toLocaleString('en')} kB (${growth >= 0 ? '+' : ''}${growth.toLocaleString('en')} kB); highest sample ${peak.toLocaleString('en')} kB; VmHWM ${last.hwm.toLocaleString('en')} kB.`);
    line();
    line('| snapshots | VmRSS kB | VmHWM kB | snapshot p50 ms over the interval |');
    line('|---|---|---|---|');
    for (const s of rss.samples) line(`| ${s.at} | ${s.rss.toLocaleString('en')} | ${s.hwm.toLocaleString('en')} | ${fmt(s.ms)} |`);
    line();
  }
  line(leaked.length ? `Processes left after the graceful closes (ended by pid): ${leaked.join(', ')}.` : 'Processes left after the graceful closes: none.');
  if (failures.length) {
    line();
    line(`Failed commands (${failures.length}; their times are still in the samples):`);
    for (const f of failures.slice(0, 20)) line(`- ${f}`);
  }
  line();
  return out.join('\n');
}

await main();
