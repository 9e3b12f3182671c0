// Running the two CLIs: one invocation with a deadline, and the sweep that ends everything a run
// started.
//
// Every process the harness starts gets `ABX_COMPAT_RUN=<marker>` in its environment. Daemons detach
// (setsid) and Chrome is their child, so none of them are our descendants; but they all inherit the
// environment, so the sweep finds exactly the processes of this run by reading /proc/<pid>/environ
// and ends them by pid. Nothing is ever killed by name.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export const MARKER_VAR = 'ABX_COMPAT_RUN';

/** The Chrome flags the developers' guide prescribes on this machine (root, no network), for
 * every runner of the compat harness and the side-by-side bench. */
export const CHROME_FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Largest stdout or stderr kept per invocation (the rest is dropped, with a note). */
const CAPTURE_LIMIT = 1 << 20;

/** Process groups of invocations still running, so an interrupt can end them at once. */
const running = new Set();

/**
 * Runs `bin argv…` in its own process group and resolves with
 * `{rc, stdout, stderr, ms, timedOut}`; never rejects. On timeout the whole group is killed and
 * `rc` is null.
 */
export function exec(bin, argv, { env, cwd, input, timeoutMs }) {
  return new Promise((resolve) => {
    const started = performance.now();
    let child;
    try {
      child = spawn(bin, argv, {
        env,
        cwd,
        detached: true,
        stdio: [input == null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (err) {
      resolve({ rc: 127, stdout: '', stderr: String(err), ms: 0, timedOut: false });
      return;
    }
    const out = capture(child.stdout);
    const err = capture(child.stderr);
    let timedOut = false;
    let done = false;
    running.add(child.pid);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, 'SIGKILL');
    }, timeoutMs);
    const finish = (rc) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      running.delete(child.pid);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        rc: timedOut ? null : rc,
        stdout: out.text(),
        stderr: err.text(),
        ms: Math.round(performance.now() - started),
        timedOut,
      });
    };
    child.on('error', (e) => {
      err.push(Buffer.from(String(e)));
      finish(127);
    });
    // A CLI whose detached daemon kept our pipes open would never 'close': take 'exit' and give the
    // pipes a moment to drain.
    child.on('exit', (code, signal) => {
      const rc = code ?? 128 + (signal ? osSignal(signal) : 0);
      child.on('close', () => finish(rc));
      setTimeout(() => finish(rc), 300);
    });
    if (input != null) {
      child.stdin.on('error', () => {});
      child.stdin.end(input);
    }
  });
}

function capture(stream) {
  const chunks = [];
  let size = 0;
  let dropped = 0;
  stream.on('data', (chunk) => {
    if (size >= CAPTURE_LIMIT) {
      dropped += chunk.length;
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  stream.on('error', () => {});
  return {
    push: (b) => chunks.push(b),
    text: () =>
      Buffer.concat(chunks).toString('utf8') + (dropped ? `\n[… ${dropped} bytes dropped]` : ''),
  };
}

function osSignal(name) {
  const numbers = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 };
  return numbers[name] ?? 0;
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/** Kills the process groups of invocations still running (on interrupt). */
export function killRunning() {
  for (const pid of running) killGroup(pid, 'SIGKILL');
  running.clear();
}

/** Pids of live processes whose environment carries `ABX_COMPAT_RUN=<marker>`, except ours. */
export function markedPids(marker) {
  const needle = `\0${MARKER_VAR}=${marker}\0`;
  const found = [];
  let entries = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, 'latin1');
      if (!`\0${environ}\0`.includes(needle)) continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // A zombie is already dead; its parent (or init) reaps it.
      if (/\) Z /.test(stat)) continue;
      found.push(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/**
 * Ends every process of this run: SIGTERM, up to `graceMs` to go, then SIGKILL. Returns the pids
 * that were still alive when the sweep began.
 */
export async function sweep(marker, graceMs = 2000) {
  const first = markedPids(marker);
  for (const pid of first) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && markedPids(marker).length > 0) await sleep(50);
  for (const pid of markedPids(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  return first;
}
