// Building blocks for rows: steps that are more than one command line (find a ref by name, write
// or inspect a file, wait, run a command with an id taken from an earlier output).
//
// A `fn` step gets a helper `h` for the binary it runs in: `h.run(line | argv, {stdin, env,
// timeout})` runs one command of that binary and resolves to `{rc, stdout, stderr}`;
// `h.expand('{TMP}/x')` fills placeholders; `h.read(path)` reads a file (null when missing).
// It returns a string (stdout, rc 0) or `{rc, stdout, stderr}`; both binaries' returns compare
// like command outputs.

import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The `@eN` ref of the first line of `snapshot -i` that matches `pattern` (a RegExp source). */
export async function refOf(h, pattern, snapshotArgs = ['snapshot', '-i']) {
  const snap = await h.run(snapshotArgs);
  const line = snap.stdout.split('\n').find((l) => new RegExp(pattern).test(l)) ?? '';
  const m = /ref=(e\d+)/.exec(line);
  return m ? `@${m[1]}` : '@e-not-found';
}

/** `<verb> @ref [args…]` where the ref is that of the snapshot line matching `pattern`. */
export function withRef(verb, pattern, ...args) {
  return {
    label: `${verb} @ref(${pattern}) ${args.join(' ')}`.trim(),
    fn: async (h) => h.run([...verb.split(' '), await refOf(h, pattern), ...args]),
  };
}

/** Writes `text` to `path` (placeholders expanded) in each binary's own temp dir. */
export function writeFile(path, text) {
  return {
    label: `write ${path}`,
    fn: (h) => {
      const p = h.expand(path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, h.expand(text));
      return '';
    },
  };
}

/** Pauses the row (both binaries) for `ms`. */
export function pause(ms) {
  return { label: `pause ${ms} ms`, fn: async () => (await sleep(ms), '') };
}

function pngSize(buf) {
  if (buf.length < 24 || buf.readUInt32BE(0) !== 0x89504e47) return null;
  return `${buf.readUInt32BE(16)}x${buf.readUInt32BE(20)}`;
}

/**
 * A summary of a written file that compares across binaries: its kind and the properties a user
 * would check, never its size or bytes.
 */
export function describe(buf, kind) {
  if (buf == null) return { rc: 1, stdout: 'no file' };
  if (buf.length === 0) return { rc: 1, stdout: 'empty file' };
  const text = () => buf.toString('utf8');
  switch (kind) {
    case 'png': {
      const size = pngSize(buf);
      return size ? `PNG ${size}` : `not a PNG (${buf.subarray(0, 8).toString('hex')})`;
    }
    case 'image': {
      if (pngSize(buf)) return 'PNG';
      if (buf[0] === 0xff && buf[1] === 0xd8) return 'JPEG';
      return `unknown image (${buf.subarray(0, 4).toString('hex')})`;
    }
    case 'pdf':
      return text().startsWith('%PDF-') ? 'PDF' : 'not a PDF';
    case 'webm':
      return buf.readUInt32BE(0) === 0x1a45dfa3 ? 'WebM' : `not WebM (${buf.subarray(0, 4).toString('hex')})`;
    case 'text':
      return text();
    case 'trace': {
      try {
        const j = JSON.parse(text());
        const events = Array.isArray(j) ? j : j.traceEvents;
        return Array.isArray(events) && events.length > 0 ? 'JSON trace with events' : 'JSON without trace events';
      } catch {
        return 'not JSON';
      }
    }
    case 'har': {
      try {
        const log = JSON.parse(text()).log;
        const entries = log?.entries ?? [];
        const api = entries.find((e) => /\/api\/items/.test(e.request?.url ?? ''));
        return [
          `HAR ${log?.version}`,
          `entries: ${entries.length > 0 ? 'yes' : 'none'}`,
          `/api/items: ${api ? `${api.request.method} ${api.response?.status}` : 'missing'}`,
          `its body: ${api?.response?.content?.text ? JSON.stringify(api.response.content.text) : 'not embedded'}`,
        ].join('\n');
      } catch {
        return 'not JSON';
      }
    }
    case 'state': {
      try {
        const j = JSON.parse(text());
        const cookies = (j.cookies ?? []).map((c) => c.name).sort();
        const origins = (j.origins ?? []).map((o) => `${o.origin}: ${(o.localStorage ?? []).map((e) => e.name).sort().join(',')}`);
        return `keys: ${Object.keys(j).sort().join(',')}\ncookies: ${cookies.join(',')}\norigins: ${origins.join('; ')}`;
      } catch {
        return 'not JSON (encrypted?)';
      }
    }
    default:
      return `${buf.length > 0 ? 'non-empty' : 'empty'} file`;
  }
}

/** An effect check: the written file at `path`, described as `kind` (see `describe`). */
export function file(path, kind) {
  return { label: `file ${path} (${kind})`, fn: (h) => describe(h.read(path), kind) };
}

/**
 * Runs `first`, takes an id out of its stdout with `pattern` (first group), then runs `then` with
 * `{ID}` replaced. The second command's output is the step's output.
 */
export function withIdFrom(first, pattern, then, label) {
  return {
    label: label ?? `${then} (ID from \`${first}\`)`,
    fn: async (h) => {
      const a = await h.run(first);
      const m = new RegExp(pattern).exec(`${a.stdout}\n${a.stderr}`);
      if (!m) return { rc: 1, stdout: '', stderr: `no id in the output of \`${first}\`: ${a.stdout}${a.stderr}`.trim() };
      const line = typeof then === 'string' ? then.split('{ID}').join(m[1]) : then.map((w) => w.split('{ID}').join(m[1]));
      return h.run(line);
    },
  };
}

/** `<cmd> --help` exits 0 and has an Examples section. */
export function helpHasExamples(cmd) {
  return {
    label: `${cmd} --help has examples`,
    fn: async (h) => {
      const r = await h.run([cmd, '--help']);
      return `rc ${r.rc}, examples: ${/^\s*Examples?:/m.test(r.stdout)}`;
    },
  };
}
