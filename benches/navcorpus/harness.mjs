#!/usr/bin/env node
// The navigation corpus, side by side: every pattern of patterns.mjs through upstream
// agent-browser 0.41.2 and abx, each on full Chromium and on the headless shell, one row per
// pattern × step with each binary's output, exit code and wall time, and a verdict. Start it
// through benches/navcorpus/run.sh (which builds abx and the fixture server, and sweeps up after an
// interrupt); `node benches/navcorpus/harness.mjs --help` lists the options.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir, cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

// Process handling is the compat harness's: one invocation in its own process group with a
// deadline, and a sweep of every process that carries this run's marker in its environment.
import { exec, killRunning, sweep, MARKER_VAR } from '../compat/lib/proc.mjs';
import { PATTERNS } from './patterns.mjs';
import { judge, verdictOf, combine, opened, openedAt, prints, succeeds, fails, either } from './lib/judge.mjs';
import { docsSection, spliceDocs, textSummary } from './lib/report.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const DOCS = join(REPO, 'docs/navigation-corpus.md');

/** The developers' guide's flags for Chrome on this machine (root, no network). */
const CHROME_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
].join(',');

const FULL = '/usr/bin/chromium';
const SHELL = '/usr/bin/chromium-headless-shell';

/** Upstream's own command timeout is 25 s: a bit more, so its timeouts are recorded as its own. */
const DEFAULT_STEP_TIMEOUT_MS = 30_000;
/** How long a spawned command may take to reach the request its step waits for. */
const UNTIL_TIMEOUT_MS = 15_000;

/** The four runs, in the order of the table's columns. */
const SIDES = [
  { name: 'upstream-full', who: 'upstream', kind: 'full', chrome: FULL },
  { name: 'upstream-shell', who: 'upstream', kind: 'shell', chrome: SHELL },
  { name: 'abx-shell', who: 'abx', kind: 'shell', chrome: SHELL },
  { name: 'abx-full', who: 'abx', kind: 'full', chrome: FULL },
];

const USAGE = `usage: benches/navcorpus/run.sh [options]
       (or node benches/navcorpus/harness.mjs --abx B --upstream B --fixtures B [options])

  --only <regex>        run only patterns whose id or group matches
  --sides <list>        run only these sides (comma-separated: ${SIDES.map((s) => s.name).join(',')})
  --list                list the patterns and exit
  --update-docs         write the generated section of docs/navigation-corpus.md (full runs only)
  --from <file>         do not run: take the result from a navcorpus.json written earlier
  --out <dir>           where navcorpus.json goes (default target/navcorpus; a partial run writes
                        navcorpus-partial.json)
  --parallel            run the four sides of a pattern at the same time (faster, noisier times)
  --step-timeout <ms>   deadline per command (${DEFAULT_STEP_TIMEOUT_MS}); a command past it is killed
  --profile <name>      the build profile of abx, for the report (debug)
  --abx-commit <rev>    the commit abx was built from, for the report (default: this checkout's
                        HEAD, +dirty when crates/ or cli/ have changes)
  --sweep <marker>      only end the processes of an earlier run with that marker, then exit`;

function parseArgs(argv) {
  const o = { out: join(REPO, 'target/navcorpus'), stepTimeout: DEFAULT_STEP_TIMEOUT_MS, profile: 'debug' };
  const value = (i) => {
    if (i + 1 >= argv.length) fail(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--abx': o.abx = value(i++); break;
      case '--upstream': o.upstream = value(i++); break;
      case '--fixtures': o.fixtures = value(i++); break;
      case '--marker': o.marker = value(i++); break;
      case '--root': o.root = value(i++); break;
      case '--only': o.only = new RegExp(value(i++)); break;
      case '--sides': o.sides = value(i++).split(',').map((s) => s.trim()).filter(Boolean); break;
      case '--out': o.out = resolve(value(i++)); break;
      case '--from': o.from = resolve(value(i++)); break;
      case '--step-timeout': o.stepTimeout = Number(value(i++)); break;
      case '--profile': o.profile = value(i++); break;
      case '--abx-commit': o.abxCommit = value(i++); break;
      case '--sweep': o.sweep = value(i++); break;
      case '--list': o.list = true; break;
      case '--update-docs': o.updateDocs = true; break;
      case '--parallel': o.parallel = true; break;
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown option ${a}\n\n${USAGE}`);
    }
  }
  for (const s of o.sides ?? []) {
    if (!SIDES.some((side) => side.name === s)) fail(`unknown side ${s} (${SIDES.map((x) => x.name).join(', ')})`);
  }
  return o;
}

function fail(message) {
  console.error(`navcorpus: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Patterns → steps

/** Splits a command line into words (quotes group; no other shell syntax). */
function words(line) {
  const out = [];
  let cur = '';
  let inWord = false;
  let quote = null;
  for (const c of line) {
    if (quote) {
      if (c === quote) quote = null;
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** Truth for `open` of a pattern whose tab ends at `lands`, coming from page `from`. */
function openTruth(p, lands, from) {
  if (lands === null || lands === undefined) return null;
  if (lands === 'stays') return either(fails(/net::ERR_ABORTED/), opened(from.url, from.title));
  if (lands.error) return fails(lands.error);
  const page = lands.title === undefined ? openedAt(lands.url) : opened(lands.url, lands.title);
  return p.eventually ? either(page, openedAt(p.url)) : page;
}

function urlTruth(p, lands, from) {
  if (lands === null || lands === undefined) return null;
  // The tab shows Chrome's error page: its own URL, or the one that failed.
  if (lands.error) return either(prints('chrome-error://chromewebdata/'), prints(p.url));
  if (lands === 'stays') return prints(from.url);
  return prints(lands.url);
}

/** A page that moves on after its load (a timer, a refresh): wait until it has. */
function settle(p, lands) {
  if (!p.eventually || !lands || !lands.url) return [];
  return [{ run: ['wait', '--url', lands.url], label: 'wait --url <where it moves>', expect: succeeds() }];
}

function titleTruth(p, lands, from) {
  if (lands === null || lands === undefined || lands.error) return null;
  if (lands === 'stays') return prints(from.title);
  if (lands.title === undefined) return succeeds();
  return prints(lands.title);
}

/** The standard walk of a pattern (see patterns.mjs). */
function standardSteps(p) {
  const click = p.clickLands === undefined ? p.lands : p.clickLands;
  const l1 = { url: '{LAUNCHER1}', title: 'Links 1' };
  const l2 = { url: '{LAUNCHER2}', title: 'Links 2' };
  let back = p.back;
  if (back === undefined) {
    if (p.lands === null || click === null) back = null;
    // Nothing replaced launcher 2: back goes to the entry before it, where `open` ended.
    else if (click === 'stays') back = p.lands === 'stays' ? l1 : p.lands.error ? null : p.lands;
    else back = 'launcher';
  }
  if (back === 'launcher') back = l2;
  return [
    { run: ['open', l1.url], label: 'open launcher 1', setup: true, expect: opened(l1.url, l1.title) },
    { run: ['open', p.url], label: 'open', expect: openTruth(p, p.lands, l1) },
    ...settle(p, p.lands),
    { run: 'get url', expect: urlTruth(p, p.lands, l1) },
    { run: 'get title', expect: titleTruth(p, p.lands, l1) },
    ...(p.extra ?? []),
    { run: ['open', l2.url], label: 'open launcher 2', setup: true, expect: opened(l2.url, l2.title) },
    { run: 'click #go', expect: succeeds() },
    { run: 'wait --load load', expect: p.loadNeverFires ? null : succeeds() },
    ...settle(p, click),
    { run: 'get url', expect: urlTruth(p, click, l2) },
    { run: 'get title', expect: titleTruth(p, click, l2) },
    {
      run: 'back',
      // A page that moves on by itself may have moved by the time `back` reads the URL.
      expect: !back ? null : back.moves ? either(prints(back.url), prints(click.url)) : prints(back.url),
    },
    { run: 'get url', expect: back && !back.moves ? prints(back.url) : null },
    { run: 'get title', expect: back && !back.moves ? prints(back.title) : null },
  ];
}

function stepsOf(p) {
  const raw = p.steps ?? standardSteps(p);
  return raw.map((s) => {
    const step = typeof s === 'string' ? { run: s } : { ...s };
    if (step.spawn) step.label ??= `${step.spawn} (started)`;
    else if (step.join) step.label ??= `(${step.join} ends)`;
    else step.label ??= Array.isArray(step.run) ? step.run.join(' ') : step.run;
    if (step.expect === undefined) step.expect = null;
    return step;
  });
}

function validate(patterns) {
  const seen = new Set();
  for (const p of patterns) {
    if (!p.id || !p.group || !p.about) fail(`a pattern lacks id, group or about: ${JSON.stringify(p)}`);
    if (seen.has(p.id)) fail(`two patterns are called ${p.id}`);
    seen.add(p.id);
    if (!p.steps && !p.url) fail(`pattern ${p.id} has neither url nor steps`);
    if (!p.steps && !('lands' in p)) fail(`pattern ${p.id} has no lands (use null for "not judged")`);
  }
}

// ---------------------------------------------------------------------------------------------
// Variables and normalisation

function expand(text, vars) {
  return String(text).replace(/\{([A-Z0-9]+)\}/g, (m, k) => (k in vars ? vars[k] : m));
}

/** The placeholders of one pattern run on one side. */
function varsFor(side, pattern, run) {
  const vars = {
    SITE: run.site.origin,
    SITE2: `http://localhost:${run.site.port}`,
    PORT: String(run.site.port),
    CLOSED: String(run.closedPort),
    FILEURL: run.fileUrl,
    SIDE: side.name,
    ROOT: run.root,
  };
  if (pattern.url) {
    const target = encodeURIComponent(expand(pattern.url, vars));
    vars.LAUNCHER1 = `${vars.SITE}/nav/links.html?to=${target}&n=1`;
    vars.LAUNCHER2 = `${vars.SITE}/nav/links.html?to=${target}&n=2`;
  }
  return vars;
}

/** Replaces run-specific strings by their placeholders, longest first. */
function normaliser(vars, side) {
  const pairs = [
    ['LAUNCHER1', vars.LAUNCHER1],
    ['LAUNCHER2', vars.LAUNCHER2],
    ['FILEURL', vars.FILEURL],
    ['SITE', vars.SITE],
    ['SITE2', vars.SITE2],
    ['ROOT', vars.ROOT],
    ['SIDE', side.name],
  ]
    .filter(([, v]) => v)
    .sort((a, b) => b[1].length - a[1].length);
  return (text) => {
    let s = String(text).replace(/\r\n/g, '\n');
    for (const [name, value] of pairs) s = s.split(value).join(`{${name}}`);
    s = s.split(`:${vars.CLOSED}`).join(':{CLOSED}');
    s = s.split(`:${vars.PORT}`).join(':{PORT}');
    s = s.replace(/\b[0-9A-F]{32}\b/g, '{TARGETID}');
    return s;
  };
}

/** Upstream's launch diagnostics on stderr are not part of a command's answer. */
const quiet = (stderr) =>
  stderr
    .split('\n')
    .filter((line) => !/^\[agent-browser\]/.test(line))
    .join('\n');

// ---------------------------------------------------------------------------------------------
// Running

function sideEnv(side, o) {
  const base = join(o.root, side.name);
  const dirs = { home: join(base, 'home'), sock: join(base, 's'), tmp: join(base, 'tmp') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    AGENT_BROWSER_SOCKET_DIR: dirs.sock,
    AGENT_BROWSER_EXECUTABLE_PATH: side.chrome,
    AGENT_BROWSER_ARGS: CHROME_ARGS,
    AGENT_BROWSER_NO_VERSION_CHECK: '1',
    AGENT_BROWSER_SESSION: 'nav',
    [MARKER_VAR]: o.marker,
  };
}

/** How many requests for exactly `path` the fixture server has seen. */
async function seenCount(site, path) {
  const res = await fetch(`${site.origin}/nav/seen?path=${encodeURIComponent(path)}`);
  const body = await res.json();
  return body.count;
}

/** Waits (polling the server's log) until `path` was requested more than `before` times. */
async function untilSeen(site, path, before) {
  const deadline = Date.now() + UNTIL_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if ((await seenCount(site, path)) > before) return true;
    await sleep(20);
  }
  return false;
}

/** Runs every step of `pattern` on `side`; returns one result per step. */
async function runPattern(side, pattern, run, o) {
  const vars = varsFor(side, pattern, run);
  const norm = normaliser(vars, side);
  const env = { ...side.env };
  if (pattern.isolate) env.AGENT_BROWSER_SESSION = `nav-${pattern.id}`;
  const call = (argv, timeoutMs = o.stepTimeout) =>
    exec(side.bin, argv.map((w) => expand(w, vars)), { env, cwd: run.cwd, timeoutMs });
  const spawned = new Map();
  const results = [];
  let hung = false;
  for (const step of pattern.steps) {
    let r;
    let note = '';
    if (step.spawn) {
      const until = expand(step.until, vars);
      const before = await seenCount(run.site, until);
      spawned.set(step.as, call(words(step.spawn)));
      const reached = await untilSeen(run.site, until, before);
      r = { rc: 0, stdout: '', stderr: '', ms: 0, timedOut: false };
      note = reached ? `started; the browser asked for ${step.until}` : `started; the browser never asked for ${step.until} within ${UNTIL_TIMEOUT_MS / 1000} s`;
    } else if (step.join) {
      r = await spawned.get(step.join);
      spawned.delete(step.join);
    } else {
      r = await call(Array.isArray(step.run) ? step.run : words(step.run));
    }
    if (r.timedOut) hung = true;
    const out = {
      rc: r.timedOut ? null : r.rc,
      stdout: norm(r.stdout).replace(/\n+$/, ''),
      stderr: norm(quiet(r.stderr)).replace(/\n+$/, ''),
      ms: r.ms,
      timedOut: r.timedOut,
    };
    if (note) out.note = note;
    out.ok = step.spawn ? null : judge(step.expect, out, vars, norm);
    results.push(out);
  }
  for (const pending of spawned.values()) {
    const r = await pending;
    if (r.timedOut) hung = true;
  }
  if (hung || pattern.isolate) {
    // A hung daemon, or a session of its own: the next pattern starts from a clean one.
    const closed = await call(['close'], 20_000);
    if (closed.timedOut) hung = true;
  }
  return results;
}

async function runAll(patterns, sides, run, o) {
  const rows = [];
  for (let n = 0; n < patterns.length; n++) {
    if (interrupted) break;
    const pattern = patterns[n];
    const started = Date.now();
    let perSide;
    if (o.parallel) {
      perSide = await Promise.all(sides.map((side) => runPattern(side, pattern, run, o)));
    } else {
      perSide = [];
      for (const side of sides) {
        if (interrupted) break;
        perSide.push(await runPattern(side, pattern, run, o));
      }
    }
    if (interrupted) break;
    const steps = pattern.steps.map((step, i) => {
      const results = {};
      sides.forEach((side, k) => {
        results[side.name] = perSide[k][i];
      });
      const verdicts = {};
      for (const kind of ['shell', 'full']) {
        const up = results[`upstream-${kind}`];
        const abx = results[`abx-${kind}`];
        if (up && abx && !step.spawn) verdicts[kind] = verdictOf(step.expect, up, abx);
      }
      return {
        label: step.label,
        setup: !!step.setup,
        judged: step.expect !== null,
        results,
        verdicts,
        verdict: combine(verdicts),
      };
    });
    rows.push({ id: pattern.id, group: pattern.group, about: pattern.about, url: pattern.url ?? null, steps });
    const worse = steps.filter((s) => /worse|both fail/.test(s.verdict)).length;
    process.stderr.write(
      `[${String(n + 1).padStart(2)}/${patterns.length}] ${pattern.id.padEnd(30)} ${Math.round((Date.now() - started) / 1000)} s${worse ? `, ${worse} step(s) worse or failing` : ''}\n`,
    );
  }
  return rows;
}

/**
 * Judges a recorded result again with the truths of patterns.mjs as they are now (outputs are
 * stored normalised, so every placeholder stands for itself). A pattern whose steps changed since
 * the run keeps its recorded judgement.
 */
function rejudge(result) {
  const byId = new Map(PATTERNS.map((p) => [p.id, p]));
  const placeholders = new Proxy({}, { has: () => true, get: (_, k) => `{${String(k)}}` });
  const same = (t) => t;
  for (const row of result.rows) {
    const pattern = byId.get(row.id);
    if (!pattern) continue;
    const steps = stepsOf(pattern);
    if (steps.length !== row.steps.length || steps.some((s, i) => s.label !== row.steps[i].label)) continue;
    steps.forEach((step, i) => {
      const recorded = row.steps[i];
      for (const r of Object.values(recorded.results)) {
        r.ok = step.spawn ? null : judge(step.expect, r, placeholders, same);
      }
      recorded.judged = step.expect !== null;
      const verdicts = {};
      for (const kind of ['shell', 'full']) {
        const up = recorded.results[`upstream-${kind}`];
        const abx = recorded.results[`abx-${kind}`];
        if (up && abx && !step.spawn) verdicts[kind] = verdictOf(step.expect, up, abx);
      }
      recorded.verdicts = verdicts;
      recorded.verdict = combine(verdicts);
    });
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Fixture server, versions, cleanup

function startFixtures(bin, o) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, ['--port', '0'], {
      env: { PATH: process.env.PATH, [MARKER_VAR]: o.marker },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => reject(new Error('the fixture server printed no origin within 10 s')), 10_000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`the fixture server exited (${code})`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const m = /^http:\/\/127\.0\.0\.1:(\d+)$/.exec(line.trim());
      if (!m) reject(new Error(`unexpected first line from the fixture server: ${line}`));
      else resolvePromise({ child, origin: line.trim(), port: Number(m[1]) });
    });
  });
}

/** A loopback port nothing listens on (bound, then closed). */
function closedPort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

function versionOf(bin, args = ['--version']) {
  try {
    return execFileSync(bin, args, {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH, AGENT_BROWSER_NO_VERSION_CHECK: '1' },
    }).trim();
  } catch {
    return 'unknown';
  }
}

function gitCommit() {
  try {
    const rev = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', REPO, 'status', '--porcelain', '--untracked-files=no', '--', 'crates', 'cli'], { encoding: 'utf8' }).trim();
    return dirty ? `${rev}+dirty` : rev;
  } catch {
    return 'unknown';
  }
}

let interrupted = false;
let cleanupOnce = null;

async function cleanup(o, sides, fixtures) {
  if (cleanupOnce) return cleanupOnce;
  cleanupOnce = (async () => {
    killRunning();
    // Graceful first (each binary closes its sessions and their Chrome), then whatever is left.
    if (sides) {
      await Promise.all(
        sides.map((side) => exec(side.bin, ['close', '--all'], { env: side.env, cwd: o.root, timeoutMs: 20_000 })),
      );
    }
    if (fixtures && fixtures.child.exitCode === null) {
      const exited = new Promise((done) => fixtures.child.once('exit', done));
      fixtures.child.kill('SIGTERM');
      await Promise.race([exited, sleep(2000)]);
    }
    const left = await sweep(o.marker);
    if (left.length) process.stderr.write(`navcorpus: ended ${left.length} leftover process(es): ${left.join(' ')}\n`);
    if (o.ownRoot) rmSync(o.root, { recursive: true, force: true });
  })();
  return cleanupOnce;
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.sweep) {
    o.marker = o.sweep;
    const left = await sweep(o.marker);
    if (left.length) process.stderr.write(`navcorpus: swept ${left.length} process(es): ${left.join(' ')}\n`);
    if (o.root) rmSync(o.root, { recursive: true, force: true });
    return 0;
  }
  validate(PATTERNS);
  let patterns = PATTERNS;
  if (o.only) patterns = patterns.filter((p) => o.only.test(p.id) || o.only.test(p.group));
  if (o.list) {
    for (const p of patterns) console.log(`${p.id.padEnd(32)} ${p.group.padEnd(16)} ${p.about}`);
    console.log(`\n${patterns.length} patterns`);
    return 0;
  }
  const partial = !!o.only || !!o.sides;
  if (o.updateDocs && partial && !o.from) fail('--update-docs needs a full run (no --only, no --sides)');

  let result;
  if (o.from) {
    result = rejudge(JSON.parse(readFileSync(o.from, 'utf8')));
  } else {
    for (const k of ['abx', 'upstream', 'fixtures']) {
      if (!o[k] || !existsSync(o[k])) fail(`--${k} must name an existing binary (got ${o[k] ?? 'nothing'})`);
      o[k] = resolve(o[k]);
    }
    o.marker ??= `abxn-${process.pid}-${Date.now()}`;
    if (!o.root) {
      o.root = mkdtempSync(join(tmpdir(), 'abxn-'));
      o.ownRoot = true;
    }
    const chosen = SIDES.filter((s) => !o.sides || o.sides.includes(s.name));
    const sides = chosen.map((s) => ({ ...s, bin: s.who === 'abx' ? o.abx : o.upstream }));
    for (const side of sides) side.env = sideEnv(side, o);
    let fixtures = null;
    const onSignal = (sig) => {
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`\nnavcorpus: ${sig}, cleaning up\n`);
      cleanup(o, sides, fixtures).finally(() => process.exit(130));
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);
    try {
      fixtures = await startFixtures(o.fixtures, o);
      const cwd = join(o.root, 'cwd');
      mkdirSync(cwd, { recursive: true });
      const file = join(o.root, 'nav-file.html');
      writeFileSync(
        file,
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>File Page</title></head><body><h1>File Page</h1></body></html>\n',
      );
      const run = { site: fixtures, closedPort: await closedPort(), fileUrl: `file://${file}`, root: o.root, cwd };
      const withSteps = patterns.map((p) => ({ ...p, steps: stepsOf(p) }));
      const startedAt = new Date().toISOString();
      const t0 = Date.now();
      process.stderr.write(
        `navcorpus: ${patterns.length} patterns × ${sides.length} sides, fixture site ${fixtures.origin}, work dir ${o.root}\n`,
      );
      const rows = await runAll(withSteps, sides, run, o);
      if (interrupted) return 130;
      result = {
        startedAt,
        seconds: Math.round((Date.now() - t0) / 1000),
        partial,
        parallel: !!o.parallel,
        stepTimeoutMs: o.stepTimeout,
        machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown cpu'}`,
        upstream: { bin: o.upstream, version: versionOf(o.upstream) },
        abx: { bin: o.abx, version: versionOf(o.abx), commit: o.abxCommit ?? gitCommit(), profile: o.profile },
        chrome: { full: versionOf(FULL), shell: versionOf(SHELL) },
        sides: sides.map(({ name, who, kind, chrome }) => ({ name, who, kind, chrome })),
        rows,
      };
    } finally {
      await cleanup(o, sides, fixtures);
    }
    mkdirSync(o.out, { recursive: true });
    o.resultFile = join(o.out, partial ? 'navcorpus-partial.json' : 'navcorpus.json');
    writeFileSync(o.resultFile, JSON.stringify(result, null, 1) + '\n');
  }

  console.log(textSummary(result));
  if (!o.from) console.log(`\nresult: ${o.resultFile} (${result.seconds} s)`);
  if (o.updateDocs) {
    if (result.partial) fail('this result is from a partial run; docs/navigation-corpus.md needs a full one');
    const doc = readFileSync(DOCS, 'utf8');
    const fresh = spliceDocs(doc, docsSection(result));
    if (fresh !== doc) writeFileSync(DOCS, fresh);
    console.log(fresh !== doc ? 'docs/navigation-corpus.md: updated' : 'docs/navigation-corpus.md: already up to date');
  }
  return 0;
}

main().then(
  (rc) => process.exit(rc),
  (err) => {
    console.error(`navcorpus: ${err.stack ?? err}`);
    process.exit(2);
  },
);
