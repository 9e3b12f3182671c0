// A small client of the abx-host JSON front (protocol 1, docs/host.md "JSON front"): it starts
// `abx-host` on stdio, sends requests and matches replies by id, hands events to a listener,
// and answers the front's run-liveness questions from the Host's own run table.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

export type RunState = "running" | "waiting" | "ended" | "unknown";

/** A typed error reply: `{"error": {"code", "message"}}`. */
export class FrontError extends Error {
  constructor(
    readonly op: string,
    readonly code: string,
    message: string,
  ) {
    super(`${op}: ${code}: ${message}`);
  }
}

/** Any JSON object the front sends. */
export type Line = Record<string, unknown>;

export interface AbxHostOptions {
  /** The `abx-host` binary. */
  binary: string;
  /** Its arguments (`--home`, `--socket-root`, …). */
  args: string[];
  /** The Host's answer to "is this run still live?" (its run table). */
  liveness: (run: string) => RunState;
  /** Every `{"event": …}` line. */
  onEvent?: (event: Line) => void;
  /** Every `{"viewer": N, …}` line (viewers carried on the channel). */
  onViewer?: (line: Line) => void;
}

interface Pending {
  op: string;
  resolve: (result: any) => void;
  reject: (error: Error) => void;
}

export class AbxHost {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly exited: Promise<number | null>;
  /** How many liveness questions the Host answered. */
  questionsAnswered = 0;
  /** Codes of error replies that name no request (a malformed line has no id). */
  readonly unmatchedErrors: string[] = [];

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly options: AbxHostOptions,
    readonly ready: Promise<Line>,
  ) {
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  /** Starts `abx-host` and waits for its `ready` event. */
  static async start(options: AbxHostOptions): Promise<AbxHost> {
    const child = spawn(options.binary, options.args, { stdio: ["pipe", "pipe", "pipe"] });
    child.stderr.on("data", (chunk: Buffer) => process.stderr.write(`[abx-host] ${chunk}`));
    let markReady: (line: Line) => void = () => {};
    const ready = new Promise<Line>((resolve) => (markReady = resolve));
    const host = new AbxHost(child, options, ready);
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (text) => host.receive(text, markReady));
    child.once("exit", () => {
      for (const [, waiting] of host.pending) {
        waiting.reject(new Error(`abx-host exited before answering ${waiting.op}`));
      }
      host.pending.clear();
    });
    const line = await Promise.race([
      ready,
      host.exited.then((code) => {
        throw new Error(`abx-host exited (${code}) before it was ready`);
      }),
    ]);
    if (line.protocol !== 1) {
      throw new Error(`abx-host speaks protocol ${String(line.protocol)}, this client 1`);
    }
    return host;
  }

  private receive(text: string, markReady: (line: Line) => void): void {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      process.stderr.write(`not JSON from abx-host: ${text.slice(0, 200)}\n`);
      return;
    }
    if (typeof line.event === "string") {
      if (line.event === "ready") markReady(line);
      this.options.onEvent?.(line);
    } else if (line.ask === "run_state") {
      // Asked asynchronously; answered as a notification (no id, so no reply).
      const state = this.options.liveness(String(line.run));
      this.questionsAnswered += 1;
      this.send({ op: "answer", args: { ask_id: line.ask_id, state } });
    } else if (typeof line.viewer === "number") {
      this.options.onViewer?.(line);
    } else if (typeof line.id === "number" && this.pending.has(line.id)) {
      const waiting = this.pending.get(line.id)!;
      this.pending.delete(line.id);
      const error = line.error as { code: string; message: string } | undefined;
      if (error) waiting.reject(new FrontError(waiting.op, error.code, error.message));
      else waiting.resolve(line.result);
    } else if (line.error) {
      const error = line.error as { code: string; message: string };
      this.unmatchedErrors.push(error.code);
    }
  }

  private send(message: object): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** One request; resolves with its `result`, rejects with a {@link FrontError}. */
  request<T = any>(op: string, args: object = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { op, resolve, reject });
      this.send({ v: 1, id, op, args });
    });
  }

  /** Writes a raw line (for showing what a malformed request gets back). */
  sendRaw(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  /** `shutdown` (runs not in `keep` are closed), then waits for the process to exit. */
  async shutdown(keep: string[] = []): Promise<{ result: any; exitCode: number | null }> {
    const result = await this.request("shutdown", { keep });
    this.child.stdin.end();
    return { result, exitCode: await this.exited };
  }
}
