// What a step's output should be (the truth a pattern declares), and the verdict of abx against
// upstream for one step on one Chrome.
//
// Outputs arrive normalised (run-specific strings replaced by placeholders such as {SITE}); an
// expectation's text is expanded and normalised the same way before it is compared.

/** `✓ <title>\n  <url>`: what `open` prints for a page. */
export const opened = (url, title) => ({ kind: 'opened', url, title });
/** `✓ <any title>\n  <url>`. */
export const openedAt = (url) => ({ kind: 'openedAt', url });
/** Exactly this on stdout, exit 0. */
export const prints = (text) => ({ kind: 'prints', text });
/** Exit 0 and stdout that matches. */
export const printsLike = (re) => ({ kind: 'printsLike', re });
/** Exit 0, whatever it printed. */
export const succeeds = () => ({ kind: 'succeeds' });
/** A non-zero exit (not a kill by the harness) with a message that matches. */
export const fails = (re) => ({ kind: 'fails', re });
/** Any one of these. */
export const either = (...alternatives) => ({ kind: 'either', alternatives });

const expandWith = (text, vars) =>
  String(text).replace(/\{([A-Z0-9]+)\}/g, (m, k) => (k in vars ? vars[k] : m));

/**
 * Whether `out` ({rc, stdout, stderr, timedOut}) is what `expect` says; `null` when there is no
 * expectation. `norm` normalises expanded expectation text like the outputs were.
 */
export function judge(expect, out, vars, norm) {
  if (!expect) return null;
  const text = (t) => norm(expandWith(t, vars));
  const ok = out.rc === 0 && !out.timedOut;
  switch (expect.kind) {
    case 'opened':
      return ok && out.stdout === `✓ ${text(expect.title)}\n  ${text(expect.url)}`;
    case 'openedAt': {
      const lines = out.stdout.split('\n');
      return ok && lines.length === 2 && lines[0].startsWith('✓') && lines[1] === `  ${text(expect.url)}`;
    }
    case 'prints':
      return ok && out.stdout === text(expect.text);
    case 'printsLike':
      return ok && expect.re.test(out.stdout);
    case 'succeeds':
      return ok;
    case 'fails':
      return !out.timedOut && out.rc !== 0 && expect.re.test(`${out.stdout}\n${out.stderr}`);
    case 'either':
      return expect.alternatives.some((alt) => judge(alt, out, vars, norm));
    default:
      throw new Error(`unknown expectation ${expect.kind}`);
  }
}

/** abx much slower (or faster) than upstream: 3× and a second apart. */
function bySpeed(base, up, abx) {
  if (abx.ms > Math.max(3 * up.ms, up.ms + 1000)) return `${base === 'equal' ? 'abx worse' : base} (slower)`;
  if (up.ms > Math.max(3 * abx.ms, abx.ms + 1000)) return `${base === 'equal' ? 'abx better' : base} (faster)`;
  return base;
}

/**
 * One step on one Chrome: `equal`, `abx better`, `abx worse` (with `(slower)`/`(faster)` when
 * the outputs agree but the times do not), `both fail`; for a step without truth, where the
 * outputs differ and abx does not fail, `differs`.
 */
export function verdictOf(expect, up, abx) {
  if (expect) {
    if (up.ok && abx.ok) return bySpeed('equal', up, abx);
    if (!up.ok && abx.ok) return 'abx better';
    if (up.ok && !abx.ok) return 'abx worse';
    return 'both fail';
  }
  const same =
    up.rc === abx.rc && up.stdout === abx.stdout && (up.rc === 0 || up.stderr === abx.stderr);
  if (same) return bySpeed('equal', up, abx);
  const upOk = up.rc === 0;
  const abxOk = abx.rc === 0;
  if (!upOk && !abxOk) return 'both fail';
  if (upOk && !abxOk) return 'abx worse';
  if (!upOk && abxOk) return 'differs (upstream fails)';
  return 'differs';
}

/** The verdicts of both Chromes in one cell. */
export function combine(verdicts) {
  const kinds = Object.keys(verdicts);
  if (!kinds.length) return '';
  if (kinds.length === 2 && verdicts.shell === verdicts.full) return verdicts.shell;
  return kinds.map((k) => `${k}: ${verdicts[k]}`).join('; ');
}
