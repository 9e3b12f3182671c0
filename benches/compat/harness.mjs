#!/usr/bin/env node
// Side-by-side compatibility harness: runs the rows of rows.mjs through upstream agent-browser 0.41.2
// and our agent-browser, compares them, and reports `same` / `differs (why)` / `not provided` per row.
// Start it through benches/compat/run.sh (which builds our binary and the fixture server, and sweeps
// up after an interrupt); `node benches/compat/harness.mjs --help` lists the options.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

import { exec, killRunning, sweep, CHROME_FLAGS, MARKER_VAR } from './lib/proc.mjs';
import { view, compareViews } from './lib/compare.mjs';
import { textTable, docsSection, spliceDocs, detailLog, countsLine, counts } from './lib/report.mjs';
import { ROWS } from './rows.mjs';
import { EXPECTED } from './expected.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const DOCS = join(REPO, 'docs/compat.md');

const CHROME_ARGS = CHROME_FLAGS.join(',');

const DEFAULT_STEP_TIMEOUT_MS = 20_000;

/** Ours answered "this is not there": the row is `not provided`, not a difference. */
const NOT_PROVIDED = /Not yet implemented|not supported by abx|Unsupported engine/i;

const USAGE = `usage: benches/compat/run.sh [options]   (or node benches/compat/harness.mjs --ours B --upstream B --fixtures B [options])

  --only <regex>         run only rows whose id or area matches
  --list                 list the rows and exit
  --update-docs          write the table section of docs/compat.md (full runs only)
  --check                exit 1 when docs/compat.md's table differs from this run's (or --from's)
  --from <file>          do not run: take the result from a compat.json written earlier
  --out <dir>            where compat.json and compat-details.md go (default target/compat;
                         an --only run writes compat-only.json and compat-only-details.md)
  --serial               run upstream's and our command one after the other instead of together
  --step-timeout <ms>    default deadline per command (${DEFAULT_STEP_TIMEOUT_MS})
  --fail-on-unexplained  exit 1 when any row differs without an entry in expected.mjs
  --verbose              print both outputs of every differing step
  --sweep <marker>       only end the processes of an earlier run with that marker, then exit`;

function parseArgs(argv) {
  const o = { out: join(REPO, 'target/compat'), stepTimeout: DEFAULT_STEP_TIMEOUT_MS };
  const value = (i) => {
    if (i + 1 >= argv.length) fail(`${argv[i]} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--ours': o.ours = value(i++); break;
      case '--upstream': o.upstream = value(i++); break;
      case '--fixtures': o.fixtures = value(i++); break;
      case '--marker': o.marker = value(i++); break;
      case '--root': o.root = value(i++); break;
      case '--only': o.only = new RegExp(value(i++)); break;
      case '--out': o.out = resolve(value(i++)); break;
      case '--from': o.from = resolve(value(i++)); break;
      case '--step-timeout': o.stepTimeout = Number(value(i++)); break;
      case '--sweep': o.sweep = value(i++); break;
      case '--list': o.list = true; break;
      case '--update-docs': o.updateDocs = true; break;
      case '--check': o.check = true; break;
      case '--serial': o.serial = true; break;
      case '--fail-on-unexplained': o.failOnUnexplained = true; break;
      case '--verbose': o.verbose = true; break;
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      default: fail(`unknown option ${a}\n\n${USAGE}`);
    }
  }
  return o;
}

function fail(message) {
  console.error(`compat: ${message}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Rows and steps

/** Splits a command line like a shell would for words and quotes (no expansion). */
export function shellSplit(line) {
  const words = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const j = line.indexOf("'", i + 1);
      if (j < 0) throw new Error(`unclosed ' in: ${line}`);
      cur += line.slice(i + 1, j);
      i = j;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        cur += line[j];
      }
      if (j >= line.length) throw new Error(`unclosed " in: ${line}`);
      i = j;
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** A step in its full form: `{label, argv}` or `{label, fn}`, plus its compare options. */
function stepOf(step) {
  if (typeof step === 'string') return { label: step, run: step };
  if (step.fn) return { label: step.label ?? 'check', ...step };
  const label = step.label ?? (Array.isArray(step.run) ? step.run.join(' ') : step.run);
  return { ...step, label };
}

function rowSteps(row) {
  const phases = [];
  if (row.page) phases.push(['setup', { label: `open ${row.page}`, run: ['open', `{SITE}${row.page}`] }]);
  for (const s of row.setup ?? []) phases.push(['setup', stepOf(s)]);
  for (const s of row.steps ?? []) phases.push(['step', stepOf(s)]);
  for (const s of row.check ?? []) phases.push(['effect', stepOf(s)]);
  for (const s of row.teardown ?? []) phases.push(['teardown', stepOf(s)]);
  if (row.close) phases.push(['teardown', { label: 'close', run: ['close'] }]);
  return phases;
}

function validateRows(rows) {
  const seen = new Set();
  for (const r of rows) {
    if (!r.id || !r.area || !r.cmd) fail(`a row lacks id, area or cmd: ${JSON.stringify(r)}`);
    if (r.upstream === 'skip' && typeof r.expect !== 'function') fail(`row ${r.id} skips upstream but has no expect()`);
    if (seen.has(r.id)) fail(`two rows are called ${r.id}`);
    seen.add(r.id);
    if (!(r.steps ?? []).length) fail(`row ${r.id} has no steps`);
  }
  for (const id of Object.keys(EXPECTED)) {
    if (!seen.has(id)) fail(`expected.mjs names a row that does not exist: ${id}`);
    if (!EXPECTED[id].reason) fail(`expected.mjs: ${id} has no reason`);
  }
}

// ---------------------------------------------------------------------------------------------
// One binary

/** Everything one binary runs with: its own HOME, socket dir and temp dir, the shared Chrome. */
function sideOf(name, bin, o, site, freePort) {
  const base = join(o.root, name === 'upstream' ? 'u' : 'o');
  const dirs = { home: join(base, 'home'), sock: join(base, 's'), tmp: join(base, 'tmp') };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  const env = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    AGENT_BROWSER_SOCKET_DIR: dirs.sock,
    AGENT_BROWSER_EXECUTABLE_PATH: '/usr/bin/chromium',
    AGENT_BROWSER_ARGS: CHROME_ARGS,
    AGENT_BROWSER_NO_VERSION_CHECK: '1',
    [MARKER_VAR]: o.marker,
  };
  const vars = {
    FREEPORT: String(freePort),
    SITE: site.origin,
    SITE2: `http://localhost:${site.port}`,
    PORT: String(site.port),
    TMP: dirs.tmp,
    HOME: dirs.home,
  };
  return {
    name,
    bin,
    env,
    vars,
    cwd: join(o.root, 'cwd'),
    norm: {
      site: site.origin,
      // Longest first, so a path inside another is replaced whole.
      paths: [
        [dirs.tmp, 'TMP'],
        [dirs.sock, 'SOCKDIR'],
        [dirs.home, 'HOME'],
        [join(o.root, 'cwd'), 'CWD'],
        [`:${vars.FREEPORT}`, ':FREEPORT'],
      ],
    },
  };
}

/** A port for servers a row starts ({FREEPORT}: dashboard, stream); one per binary, as both run at once. */
async function pickFreePort() {
  const { createServer } = await import('node:net');
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

function expand(text, vars) {
  return String(text).replace(/\{([A-Z0-9]+)\}/g, (m, k) => (k in vars ? vars[k] : m));
}

/** The helper a `fn` step gets: run a command of this binary, read a file, the placeholders. */
function helperFor(side, rowEnv, timeoutMs) {
  const h = {
    vars: side.vars,
    tmp: side.vars.TMP,
    site: side.vars.SITE,
    expand: (t) => expand(t, side.vars),
    run: (line, opts = {}) => runCommand(side, { run: line, ...opts }, rowEnv, timeoutMs),
    read: (path) => {
      try {
        return readFileSync(expand(path, side.vars));
      } catch {
        return null;
      }
    },
  };
  return h;
}

async function runCommand(side, step, rowEnv, timeoutMs) {
  const argv = (Array.isArray(step.run) ? step.run : shellSplit(step.run)).map((w) => expand(w, side.vars));
  const env = { ...side.env };
  for (const [k, v] of Object.entries({ ...rowEnv, ...(step.env ?? {}) })) {
    if (v === null) delete env[k];
    else env[k] = expand(v, side.vars);
  }
  return exec(side.bin, argv, {
    env,
    cwd: step.cwd ? expand(step.cwd, side.vars) : side.cwd,
    input: step.stdin == null ? undefined : expand(step.stdin, side.vars),
    timeoutMs: step.timeout ?? timeoutMs,
  });
}

async function runStep(side, step, row, o) {
  const rowEnv = { ...(row.session ? { AGENT_BROWSER_SESSION: row.session } : {}), ...(row.env ?? {}) };
  const timeoutMs = step.timeout ?? row.timeout ?? o.stepTimeout;
  if (step.fn) {
    const started = performance.now();
    try {
      const got = await step.fn(helperFor(side, rowEnv, timeoutMs));
      const r = typeof got === 'string' ? { rc: 0, stdout: got, stderr: '' } : got;
      return { rc: r.rc ?? 0, stdout: r.stdout ?? '', stderr: r.stderr ?? '', timedOut: !!r.timedOut, ms: Math.round(performance.now() - started) };
    } catch (err) {
      return { rc: 'error', stdout: '', stderr: `harness check failed: ${err.message}`, timedOut: false, ms: 0 };
    }
  }
  return runCommand(side, step, rowEnv, timeoutMs);
}

/** Runs every phase of a row in one binary; a timed-out command gets its session closed after. */
async function runRowIn(side, row, phases, o) {
  if (side.name === 'upstream' && row.upstream === 'skip') {
    return phases.map(() => ({ rc: 'not run', stdout: '', stderr: '', ms: 0, timedOut: false }));
  }
  const results = [];
  let hung = false;
  for (const [, step] of phases) {
    const r = await runStep(side, step, row, o);
    if (r.timedOut) hung = true;
    results.push(r);
  }
  if (hung) {
    // The daemon may still be busy with the hung command: start the next row from a clean session.
    await runStep(side, { run: 'close', timeout: 15_000 }, row, o);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// A row, side by side

function classify(row, phases, up, ours, o, sides) {
  const steps = [];
  let notProvided = null;
  const npMarker = row.notProvided ?? NOT_PROVIDED;
  for (let i = 0; i < phases.length; i++) {
    const [phase, step] = phases[i];
    const opts = { ...(row.compare ?? {}), ...step };
    const vu = view(up[i], sides.upstream.norm, opts);
    const vo = view(ours[i], sides.ours.norm, opts);
    let why = null;
    if (phase === 'setup') {
      if (vu.rc !== vo.rc) why = `upstream rc ${vu.rc}, ours rc ${vo.rc}`;
    } else if (phase !== 'teardown') {
      why = compareViews(vu, vo, opts, step.timeout ?? row.timeout ?? o.stepTimeout);
    }
    const oursText = `${ours[i].stdout}\n${ours[i].stderr}`;
    const upText = `${up[i].stdout}\n${up[i].stderr}`;
    if (!notProvided && phase !== 'teardown' && ours[i].rc !== 0 && npMarker.test(oursText) && !npMarker.test(upText)) {
      const line = oursText.split('\n').find((l) => npMarker.test(l)) ?? '';
      notProvided = line.trim().replace(/^✗\s*/, '');
    }
    steps.push({
      phase,
      label: step.label,
      why,
      upstream: { rc: vu.rc, stdout: vu.stdout, stderr: vu.stderr, ms: up[i].ms },
      ours: { rc: vo.rc, stdout: vo.stdout, stderr: vo.stderr, ms: ours[i].ms },
    });
  }
  const base = { id: row.id, area: row.area, cmd: row.cmd, ref: row.ref ?? null, steps };
  if (notProvided !== null) return { ...base, status: 'notProvided', why: shorten(`ours: ${notProvided}`) };
  if (row.upstream === 'skip') {
    // Upstream must not run this here: hold ours to what upstream's docs promise instead.
    const problems = phases
      .map(([phase], i) => (phase === 'step' ? row.expect(ours[i]) : null))
      .filter(Boolean);
    if (problems.length) return { ...base, status: 'differs', why: shorten(`upstream not run; ${problems[0]}`) };
    return { ...base, status: 'same', why: 'upstream not run (it downloads); ours does what its docs promise' };
  }
  const differing = steps.filter((s) => s.why);
  if (!differing.length) return { ...base, status: 'same', why: '' };
  const why = shorten(differing.map((s) => `${code(s.label)}: ${s.why}`).slice(0, 2).join(' · '));
  return applyExpected({ ...base, status: 'differs', why });
}

/**
 * A differing row becomes `intended` when expected.mjs lists it and ours' output still matches the
 * entry. Also applied to a `--from` result, so an edited expected.mjs takes effect without a run.
 */
function applyExpected(r) {
  if (r.status !== 'differs' && r.status !== 'intended') return r;
  const { reason, ...rest } = r;
  const expected = EXPECTED[r.id];
  const oursText = r.steps.map((s) => `${s.ours.stdout}\n${s.ours.stderr}`).join('\n');
  if (expected && (!expected.ours || expected.ours.test(oursText))) {
    return { ...rest, status: 'intended', reason: expected.reason };
  }
  return { ...rest, status: 'differs' };
}

const code = (s) => {
  const t = s.length > 50 ? s.slice(0, 49) + '…' : s;
  return t.includes('`') ? `\`\` ${t} \`\`` : `\`${t}\``;
};
const shorten = (s, max = 240) => (s.length > max ? s.slice(0, max - 1) + '…' : s);

async function runRows(rows, o, sides) {
  const results = [];
  const total = rows.length;
  for (let n = 0; n < total; n++) {
    if (interrupted) break;
    const row = rows[n];
    const phases = rowSteps(row);
    let up;
    let ours;
    if (o.serial) {
      up = await runRowIn(sides.upstream, row, phases, o);
      ours = await runRowIn(sides.ours, row, phases, o);
    } else {
      [up, ours] = await Promise.all([
        runRowIn(sides.upstream, row, phases, o),
        runRowIn(sides.ours, row, phases, o),
      ]);
    }
    if (interrupted) break;
    const r = classify(row, phases, up, ours, o, sides);
    results.push(r);
    const label = { same: 'same', intended: 'differs (intended)', differs: 'DIFFERS', notProvided: 'not provided' }[r.status];
    process.stderr.write(`[${String(n + 1).padStart(3)}/${total}] ${r.id.padEnd(28)} ${label}\n`);
    if (o.verbose && (r.status === 'differs' || r.status === 'intended')) {
      for (const s of r.steps.filter((x) => x.why)) {
        process.stderr.write(`    ${s.label}: ${s.why}\n      upstream: ${JSON.stringify(s.upstream)}\n      ours:     ${JSON.stringify(s.ours)}\n`);
      }
    }
  }
  return results;
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

function versionOf(bin) {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000, env: { PATH: process.env.PATH, AGENT_BROWSER_NO_VERSION_CHECK: '1' } }).trim();
  } catch {
    return 'unknown';
  }
}

function gitCommit() {
  try {
    const rev = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', REPO, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
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
    // Graceful first (cookies flushed, Chrome closed by its daemon), then whatever is left.
    if (sides) {
      await Promise.all(
        Object.values(sides).map((side) =>
          exec(side.bin, ['close', '--all'], { env: side.env, cwd: side.cwd, timeoutMs: 20_000 }),
        ),
      );
    }
    if (fixtures && fixtures.child.exitCode === null) {
      const exited = new Promise((done) => fixtures.child.once('exit', done));
      fixtures.child.kill('SIGTERM');
      await Promise.race([exited, new Promise((done) => setTimeout(done, 2000))]);
    }
    const left = await sweep(o.marker);
    if (left.length) process.stderr.write(`compat: ended ${left.length} leftover process(es): ${left.join(' ')}\n`);
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
    if (left.length) process.stderr.write(`compat: swept ${left.length} process(es): ${left.join(' ')}\n`);
    if (o.root) rmSync(o.root, { recursive: true, force: true });
    return 0;
  }
  validateRows(ROWS);
  let rows = ROWS;
  if (o.only) rows = rows.filter((r) => o.only.test(r.id) || o.only.test(r.area));
  if (o.list) {
    for (const r of rows) console.log(`${r.id.padEnd(30)} ${r.area.padEnd(10)} ${r.cmd}`);
    console.log(`\n${rows.length} rows`);
    return 0;
  }
  if (o.updateDocs && o.only) fail('--update-docs needs a full run (no --only)');

  let result;
  if (o.from) {
    result = JSON.parse(readFileSync(o.from, 'utf8'));
    result.rows = result.rows.map(applyExpected);
    result.counts = counts(result.rows);
  } else {
    for (const k of ['ours', 'upstream', 'fixtures']) {
      if (!o[k] || !existsSync(o[k])) fail(`--${k} must name an existing binary (got ${o[k] ?? 'nothing'})`);
      // Commands run in a work dir of their own.
      o[k] = resolve(o[k]);
    }
    for (const k of ['ours', 'upstream']) {
      if (versionOf(o[k]) === 'unknown') fail(`${o[k]} --version failed: is it an agent-browser binary?`);
    }
    o.marker ??= `abxc-${process.pid}-${Date.now()}`;
    if (!o.root) {
      o.root = mkdtempSync(join(tmpdir(), 'abxc-'));
      o.ownRoot = true;
    }
    mkdirSync(join(o.root, 'cwd'), { recursive: true });
    let sides = null;
    let fixtures = null;
    const onSignal = (sig) => {
      if (interrupted) return;
      interrupted = true;
      process.stderr.write(`\ncompat: ${sig}, cleaning up\n`);
      cleanup(o, sides, fixtures).finally(() => process.exit(130));
    };
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);
    try {
      fixtures = await startFixtures(o.fixtures, o);
      const upPort = await pickFreePort();
      let oursPort = await pickFreePort();
      while (oursPort === upPort) oursPort = await pickFreePort();
      sides = {
        upstream: sideOf('upstream', o.upstream, o, fixtures, upPort),
        ours: sideOf('ours', o.ours, o, fixtures, oursPort),
      };
      const startedAt = new Date().toISOString();
      const t0 = Date.now();
      process.stderr.write(`compat: ${rows.length} rows, fixture site ${fixtures.origin}, work dir ${o.root}\n`);
      const done = await runRows(rows, o, sides);
      if (interrupted) return 130;
      result = {
        startedAt,
        seconds: Math.round((Date.now() - t0) / 1000),
        upstream: { bin: o.upstream, version: versionOf(o.upstream) },
        ours: { bin: o.ours, version: versionOf(o.ours), commit: gitCommit() },
        chrome: (() => {
          try {
            return execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
          } catch {
            return 'unknown';
          }
        })(),
        partial: !!o.only,
        counts: counts(done),
        rows: done,
      };
    } finally {
      await cleanup(o, sides, fixtures);
    }
    // A partial run must not replace the last full result (docs are generated from that one).
    const stem = o.only ? 'compat-only' : 'compat';
    o.resultFile = join(o.out, `${stem}.json`);
    o.detailFile = join(o.out, `${stem}-details.md`);
    mkdirSync(o.out, { recursive: true });
    writeFileSync(o.resultFile, JSON.stringify(result, null, 1) + '\n');
    writeFileSync(o.detailFile, detailLog(result) + '\n');
  }

  console.log(textTable(result.rows));
  if (!o.from) console.log(`\nresult: ${o.resultFile}, outputs side by side: ${o.detailFile} (${result.seconds} s)`);

  const doc = readFileSync(DOCS, 'utf8');
  const fresh = spliceDocs(doc, docsSection(result));
  let rc = 0;
  if (o.updateDocs) {
    if (result.partial) fail('this result is from a partial run (--only); docs/compat.md needs a full one');
    if (fresh !== doc) writeFileSync(DOCS, fresh);
    console.log(fresh !== doc ? 'docs/compat.md: table updated' : 'docs/compat.md: table already up to date');
  } else if (o.check) {
    if (fresh !== doc) {
      console.log('docs/compat.md is stale: its table differs from this run. Run benches/compat/run.sh --update-docs.');
      rc = 1;
    } else console.log('docs/compat.md: table up to date');
  } else if (!result.partial && fresh !== doc) {
    console.log('docs/compat.md differs from this run (benches/compat/run.sh --update-docs writes it)');
  }
  if (o.failOnUnexplained && result.rows.some((r) => r.status === 'differs')) rc = 1;
  console.log(countsLine(result.rows));
  return rc;
}

main().then(
  (rc) => process.exit(rc),
  (err) => {
    console.error(`compat: ${err.stack ?? err}`);
    process.exit(2);
  },
);
