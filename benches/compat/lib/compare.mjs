// Normalising one binary's output and comparing two: exit code, stdout (text or JSON), stderr.
//
// Volatile parts (ports, pids, browser and target ids, temp paths, timestamps) become fixed tokens so
// that only differences a script or an agent would notice remain.

/**
 * Replaces the volatile parts of `text`. `ctx.paths` maps this binary's own directories (its temp
 * dir, HOME, socket dir) to the tokens TMP, HOME, SOCKDIR; `ctx.site` is the fixture origin.
 */
export function normalise(text, ctx, extra = []) {
  let s = String(text).replace(/\r\n/g, '\n');
  for (const [from, to] of ctx.paths) s = s.split(from).join(to);
  s = s.split(ctx.site).join('SITE');
  s = s.replace(/\b(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0):\d{2,5}\b/g, '$1:PORT');
  s = s.replace(/\/devtools\/(browser|page)\/[0-9A-Za-z-]+/g, '/devtools/$1/ID');
  s = s.replace(/\b[0-9A-F]{32}\b/g, 'TARGETID');
  s = s.replace(/\/tmp\/agent-browser[\w.-]*/g, '/tmp/AB-TMP');
  s = s.replace(/\b(TMP|HOME)\/agent-browser-[\w.-]+/g, '$1/AB-TMP');
  s = s.replace(
    /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g,
    'TIMESTAMP',
  );
  s = s.replace(/\b1[6-9]\d{11}(\.\d+)?\b/g, 'EPOCHMS');
  s = s.replace(/\b1[7-9]\d{8}(\.\d+)?\b/g, 'EPOCHS');
  s = s.replace(/\b(pid|PID)( |: |=|\s+)\d+/g, '$1$2PID');
  for (const [re, to] of extra) s = s.replace(re, to);
  return s;
}

/** Drops the launch diagnostics upstream writes to stderr (`[agent-browser] launched browser`). */
export function filterStderr(text) {
  return text
    .split('\n')
    .filter((line) => !/^\[agent-browser\]/.test(line))
    .join('\n');
}

/**
 * JSON keys whose values change from run to run: only their presence and JSON type compare.
 * `lifecycle` (in every `--json` reply) has a row of its own (json.lifecycle), which compares it.
 */
export const VOLATILE_KEY =
  /^(pid|backgroundPid|port|timestamp|time|ts|wallTime|startedAt|endedAt|createdAt|updatedAt|savedAt|lastUsed|expires|expiry|duration\w*|elapsed\w*|\w*Ms|uptime\w*|timings|sourcePort|size|bytes|objectId|launchHash|lifecycle)$/;

/** The same without `lifecycle`, for the row that compares it. */
export const VOLATILE_KEY_WITH_LIFECYCLE = new RegExp(VOLATILE_KEY.source.replace('|lifecycle', ''));

/**
 * Renumbers element refs (`@e12`, `ref=e12`, `"e12"`, `[e12]`) in order of first appearance, so
 * that outputs compare without depending on how many refs earlier rows handed out.
 */
export function relativeRefs(text) {
  const seen = new Map();
  return text.replace(/(?<=@|ref=|"|\[)e(\d+)\b/g, (m) => {
    if (!seen.has(m)) seen.set(m, `e#${seen.size + 1}`);
    return seen.get(m);
  });
}

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Differences between two parsed JSON values, as `{path, kind, up, ours}`. */
export function diffJson(up, ours, path = '', volatile = VOLATILE_KEY, out = []) {
  const tu = typeOf(up);
  const to = typeOf(ours);
  const key = path.split('.').pop().replace(/\[\d+\]$/, '');
  if (tu !== to) {
    out.push({ path, kind: 'type', up, ours });
    return out;
  }
  if (volatile.test(key) && path !== '') return out;
  if (tu === 'object') {
    for (const k of Object.keys(up)) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in ours)) out.push({ path: p, kind: 'missing', up: up[k] });
      else diffJson(up[k], ours[k], p, volatile, out);
    }
    for (const k of Object.keys(ours)) {
      if (!(k in up)) out.push({ path: path ? `${path}.${k}` : k, kind: 'extra', ours: ours[k] });
    }
  } else if (tu === 'array') {
    const n = Math.min(up.length, ours.length);
    for (let i = 0; i < n; i++) diffJson(up[i], ours[i], `${path}[${i}]`, volatile, out);
    if (up.length !== ours.length) {
      out.push({ path: `${path}.length`, kind: 'value', up: up.length, ours: ours.length });
    }
  } else if (!Object.is(up, ours)) {
    out.push({ path, kind: 'value', up, ours });
  }
  return out;
}

/** Applies `normalise` to every string inside a parsed JSON value. */
function normaliseJson(value, ctx, extra) {
  if (typeof value === 'string') return normalise(value, ctx, extra);
  if (Array.isArray(value)) return value.map((v) => normaliseJson(v, ctx, extra));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = normaliseJson(v, ctx, extra);
    return out;
  }
  return value;
}

function parseJson(text) {
  const t = text.trim();
  if (!t || !'{['.includes(t[0])) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** Integral numbers written with a fraction (`21.0`): the same to a parser, not to a string compare. */
function fractionalIntegers(text) {
  return (text.match(/(?<![\w."])-?\d+\.0+(?![\d.])/g) ?? []).length;
}

export function short(value, max = 70) {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > max ? `${value.slice(0, max - 1)}…` : value);
  }
  const s = JSON.stringify(value) ?? 'undefined';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function jsonSummary(diffs) {
  const missing = diffs.filter((d) => d.kind === 'missing').map((d) => d.path);
  const extra = diffs.filter((d) => d.kind === 'extra').map((d) => d.path);
  const values = diffs.filter((d) => d.kind === 'value' || d.kind === 'type');
  const parts = [];
  const list = (paths) =>
    paths.length > 4 ? `${paths.slice(0, 4).join(', ')} (+${paths.length - 4})` : paths.join(', ');
  if (missing.length) parts.push(`ours lacks ${list(missing)}`);
  if (extra.length) parts.push(`ours adds ${list(extra)}`);
  for (const d of values.slice(0, 2)) {
    parts.push(`${d.path || 'value'}: upstream ${short(d.up, 40)}, ours ${short(d.ours, 40)}`);
  }
  if (values.length > 2) parts.push(`(+${values.length - 2} more values)`);
  return parts.join('; ');
}

function textSummary(what, up, ours) {
  const a = up.split('\n');
  const b = ours.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const la = a[i] ?? '';
  const lb = b[i] ?? '';
  const counts = a.length !== b.length ? ` (${a.length} vs ${b.length} lines)` : '';
  if (a.length === 1 && b.length === 1) return `${what}: upstream ${short(la)}, ours ${short(lb)}`;
  return `${what} line ${i + 1}${counts}: upstream ${short(la)}, ours ${short(lb)}`;
}

/**
 * Normalised view of one invocation, per the step's compare options:
 * `{rc, stdout, stderr, json}` where `json` is the parsed, normalised stdout when it is JSON.
 */
export function view(result, ctx, opts = {}) {
  const extra = opts.norm ?? [];
  const refs = opts.refs === 'absolute' ? (t) => t : relativeRefs;
  const rawOut = refs(result.stdout);
  let json;
  if (opts.stdout !== 'text') {
    const parsed = parseJson(rawOut);
    if (parsed !== undefined) json = normaliseJson(parsed, ctx, extra);
  }
  let stdout = normalise(rawOut, ctx, extra).replace(/\s+$/, '');
  let stderr = normalise(refs(result.stderr), ctx, extra);
  if (opts.stderr !== 'raw') stderr = filterStderr(stderr);
  stderr = stderr.replace(/\s+$/, '');
  if (opts.lines === 'unordered') stdout = stdout.split('\n').sort().join('\n');
  return {
    rc: result.timedOut ? 'timeout' : result.rc,
    stdout,
    stderr,
    json,
    fractional: fractionalIntegers(rawOut),
  };
}

/**
 * Compares the two views of one step. Returns null when they agree, else a one-line reason
 * (upstream first, ours second).
 */
export function compareViews(up, ours, opts = {}, timeoutMs = 0) {
  const reasons = [];
  if (up.rc !== ours.rc) {
    const fmt = (rc) => (rc === 'timeout' ? `timed out after ${timeoutMs / 1000}s` : `rc ${rc}`);
    reasons.push(`upstream ${fmt(up.rc)}, ours ${fmt(ours.rc)}`);
  }
  if (opts.stdout !== 'ignore') {
    if (up.json !== undefined && ours.json !== undefined) {
      const diffs = diffJson(up.json, ours.json, '', opts.volatile ?? VOLATILE_KEY);
      if (diffs.length) reasons.push(`json: ${jsonSummary(diffs)}`);
      else if (up.fractional !== ours.fractional) {
        reasons.push(
          `json number format: ${ours.fractional > up.fractional ? 'ours' : 'upstream'} writes integers as N.0`,
        );
      }
    } else if (up.stdout !== ours.stdout) {
      reasons.push(textSummary('stdout', up.stdout, ours.stdout));
    }
  }
  if (opts.stderr !== 'ignore' && up.stderr !== ours.stderr) {
    reasons.push(textSummary('stderr', up.stderr, ours.stderr));
  }
  return reasons.length ? reasons.join('; ') : null;
}
