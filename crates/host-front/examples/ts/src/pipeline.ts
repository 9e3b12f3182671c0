// An example Host in TypeScript: the seed's pipeline on the fixture site, through `abx-host`.
//
//   1. run 1, stage `check`: the Host's login check of profile `fixture-site` (logged out).
//   2. stage `login`: a person logs in through the live view. This Host has no screen; the
//      example plays the person: it attaches a control viewer (on its own WebSocket, or on the
//      channel where node has no WebSocket client) and types the credentials into the login
//      form through viewer input. The run is "waiting" (at a
//      gate) meanwhile, and the Host checks the login again afterwards.
//   3. stages `work-a` and `work-b` in parallel on the same profile, each running
//      `agent-browser` with its own env (its own tab of the run's one shared browser).
//   4. run 2 starts its own check while run 1 still holds the profile: it waits (the front
//      asks this Host whether run 1 is still live), then run 1 is torn down, and run 2's check
//      finds the login persisted.
//   5. run 2 teardown, `shutdown`: nothing is left running.
//
// Usage: node --experimental-websocket dist/pipeline.js --abx-host PATH --agent-browser PATH
//        --site http://127.0.0.1:PORT --home DIR --socket-root DIR
// It prints one JSON report on stdout and exits 0 when the pipeline went through.

import { execFile } from "node:child_process";
import { promisify } from "node:util";

import { AbxHost, FrontError, type Line, type RunState } from "./abx-host.js";

const run = promisify(execFile);

function option(name: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (!value) throw new Error(`--${name} is required`);
  return value;
}

const paths = {
  abxHost: option("abx-host"),
  agentBrowser: option("agent-browser"),
  site: option("site").replace(/\/$/, ""),
  home: option("home"),
  socketRoot: option("socket-root"),
};

type Env = Record<string, string>;

/** An agent's bash: `agent-browser <args>` with the stage env and nothing else of ours. */
async function agent(env: Env, ...args: string[]): Promise<string> {
  const base: Env = {};
  for (const key of ["PATH", "HOME", "TMPDIR"]) {
    const value = process.env[key];
    if (value) base[key] = value;
  }
  const { stdout } = await run(paths.agentBrowser, args, { env: { ...base, ...env } });
  return stdout.trimEnd();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The Host's run table: what it answers when the front asks. */
const runs = new Map<string, RunState>();
const events: Line[] = [];

const scope = "local";
const profile = "fixture-site";
const check = {
  url: `${paths.site}/members`,
  logged_in: ["**/members"],
  logged_out: ["**/login.html*"],
};

/** How the person's viewer reaches the front: its own WebSocket, or the Host's channel. */
interface ViewerLink {
  send(message: object): void;
  close(): void;
}

/** The person in front of the live view. */
class Person {
  framesSeen = 0;
  private readonly waiters: Array<(message: any) => boolean> = [];
  link: ViewerLink | undefined;

  /** A viewer message arrived. */
  receive(message: any): void {
    if (message.type === "frame") this.framesSeen += 1;
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (this.waiters[i](message)) this.waiters.splice(i, 1);
    }
  }

  /** Over the viewer's own WebSocket (what a person's page behind the Host's proxy speaks). */
  async connect(url: string): Promise<void> {
    const socket = new WebSocket(url);
    socket.onmessage = (event: MessageEvent) => this.receive(JSON.parse(String(event.data)));
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error("the viewer WebSocket did not open"));
    });
    this.link = { send: (m) => socket.send(JSON.stringify(m)), close: () => socket.close() };
  }

  /** Waits for a viewer message `matches` accepts. */
  see(what: string, matches: (message: any) => boolean, ms = 20_000): Promise<any> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the person never saw ${what}`)), ms);
      this.waiters.push((message) => {
        if (!matches(message)) return false;
        clearTimeout(timer);
        resolve(message);
        return true;
      });
    });
  }

  private send(message: object): void {
    this.link!.send(message);
  }

  click(x: number, y: number): void {
    for (const eventType of ["mousePressed", "mouseReleased"]) {
      this.send({ type: "input_mouse", eventType, x, y, button: "left", clickCount: 1 });
    }
  }

  type(text: string): void {
    for (const key of text) {
      this.send({ type: "input_keyboard", eventType: "keyDown", key, text: key });
      this.send({ type: "input_keyboard", eventType: "keyUp", key });
    }
  }

  pressEnter(): void {
    this.send({ type: "input_keyboard", eventType: "keyDown", key: "Enter", text: "\r", windowsVirtualKeyCode: 13 });
    this.send({ type: "input_keyboard", eventType: "keyUp", key: "Enter", windowsVirtualKeyCode: 13 });
  }

  leave(): void {
    this.link?.close();
  }
}

/** Where `selector` is on the stage's page (what the person sees in the frames). */
async function centre(env: Env, selector: string): Promise<[number, number]> {
  const script = `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`;
  const [x, y] = JSON.parse(await agent(env, "eval", script)) as [number, number];
  return [x, y];
}

async function main(): Promise<void> {
  // Node 22 has a global WebSocket (20 and 21 with --experimental-websocket); without one the
  // viewer is carried on the Host's channel instead.
  const via = typeof WebSocket === "undefined" ? "channel" : "websocket";
  const person = new Person();
  const host = await AbxHost.start({
    binary: paths.abxHost,
    args: [
      "--home", paths.home,
      "--socket-root", paths.socketRoot,
      "--agent-browser", paths.agentBrowser,
      // A server Host: no screen, but a live view for the person who logs in.
      "--screen", "none",
      "--live-view",
      "--launch-arg", "--disable-quic",
      "--launch-arg", "--disable-gpu",
    ],
    // Runs this Host never started are over.
    liveness: (run) => runs.get(run) ?? "ended",
    onEvent: (event) => {
      events.push(event);
      process.stderr.write(`event: ${JSON.stringify(event)}\n`);
    },
    onViewer: (line) => {
      if (line.message) person.receive(line.message);
    },
  });
  const hello = await host.request("hello");
  host.sendRaw("{this is not json");
  const sweep = await host.request("sweep");

  const run1 = `run-ts-${process.pid}-1`;
  runs.set(run1, "running");

  // 1. The check stage: the Host decides.
  const checked = await host.request("prepare_stage", {
    scope, run: run1, stage: "check",
    spec: { profile, login_check: check },
  });
  const loggedInAtStart: boolean = checked.login.logged_in;
  await host.request("end_stage", { run: run1, stage: "check" });

  // 2. The human login stage: the person logs in through the live view.
  const login = await host.request("prepare_stage", {
    scope, run: run1, stage: "login",
    spec: { profile, human_login: `${paths.site}/login.html` },
  });
  runs.set(run1, "waiting");
  const { ticket } = await host.request("live_view_ticket", { scope, run: run1, stage: "login", mode: "control" });
  const { credential } = await host.request("redeem_live_view_ticket", { ticket });
  const viewer = await host.request("open_viewer", { scope, credential, via });
  if (via === "websocket") {
    await person.connect(viewer.url);
  } else {
    person.link = {
      send: (message) => {
        host
          .request("viewer_send", { viewer: viewer.viewer, message })
          .catch((e: Error) => process.stderr.write(`viewer input refused: ${e.message}\n`));
      },
      close: () => {},
    };
  }
  await person.see("a frame of the login page", (m) => m.type === "frame");
  let [x, y] = await centre(login.env, "#username");
  person.click(x, y);
  person.type("ada");
  [x, y] = await centre(login.env, "#password");
  person.click(x, y);
  person.type("correct horse");
  const arrived = person.see("the account page", (m) => m.type === "url" && String(m.url).includes("/account"));
  person.pressEnter();
  await arrived;
  person.leave();
  await host.request("close_viewer", { viewer: viewer.viewer });
  runs.set(run1, "running");
  const recheck = await host.request("login_check", { scope, run: run1, stage: "login", check });
  await host.request("end_stage", { run: run1, stage: "login" });
  if (!recheck.logged_in) throw new Error("still logged out after the login stage");

  // 3. Two work stages in parallel on the same profile.
  const [a, b] = await Promise.all(
    ["work-a", "work-b"].map((stage) =>
      host.request("prepare_stage", { scope, run: run1, stage, spec: { profile } }),
    ),
  );
  const job = async (env: Env, path: string, selector: string) => {
    await agent(env, "open", `${paths.site}${path}`);
    const text = await agent(env, "get", "text", selector);
    return { title: await agent(env, "get", "title"), text };
  };
  const work = await Promise.all([job(a.env, "/account", "#persist"), job(b.env, "/page2.html", "h1")]);
  await Promise.all(["work-a", "work-b"].map((stage) => host.request("end_stage", { run: run1, stage })));
  const status = await host.request("status", { run: run1, probe: true });

  // 4. Run 2 queues behind run 1 for the profile; run 1 ends; run 2 finds the login kept.
  const run2 = `run-ts-${process.pid}-2`;
  runs.set(run2, "running");
  const queued = host.request("prepare_stage", {
    scope, run: run2, stage: "check",
    spec: { profile, login_check: check },
  });
  while (!events.some((e) => e.event === "waiting_for_profile" && e.run === run2)) {
    await sleep(50);
  }
  // Ended in the run table only after its teardown: an ended holder's lease is taken over.
  const teardown1 = await host.request("end_run", { run: run1 });
  runs.set(run1, "ended");
  const second = await queued;
  const teardown2 = await host.request("end_run", { run: run2 });
  runs.set(run2, "ended");

  // 5. Shutdown: the front closes what is left (nothing) and exits.
  const badStage = await host
    .request("end_stage", { run: "../elsewhere", stage: "x" })
    .then(() => "accepted", (e: FrontError) => e.code);
  const { result: shutdown, exitCode } = await host.shutdown();

  const report = {
    protocol: hello.protocol,
    sweep,
    logged_in_at_start: loggedInAtStart,
    login_display: login.display.reason.reason,
    viewer_via: via,
    frames_seen: person.framesSeen,
    logged_in_after_login: recheck.logged_in,
    work,
    one_shared_browser: a.env.AGENT_BROWSER_CDP === b.env.AGENT_BROWSER_CDP,
    status_stages: status.runs[0].stages.map((s: any) => [s.stage, s.closed]),
    status_anchor_health: status.runs[0].anchors[0]?.health?.state,
    run2_logged_in: second.login.logged_in,
    teardown_complete: teardown1.complete && teardown2.complete,
    events: [...new Set(events.map((e) => String(e.event)))],
    questions_answered: host.questionsAnswered,
    malformed_line: host.unmatchedErrors,
    bad_stage: badStage,
    shutdown_runs: Object.keys(shutdown.runs).length,
    exit_code: exitCode,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`pipeline failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
