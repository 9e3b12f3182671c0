#!/usr/bin/env python3
"""How long a session stays held by a command whose caller died (issue 35, ADR 0016).

For each binary (abx, upstream 0.41.2) and N rounds: a CLI runs `wait --fn <predicate>` (a
predicate that never holds and requests `/log?cancel-bench=<round>` each time it is polled, with
a 3 s timeout), the bench waits until the fixture server has seen that request (the wait runs in
the daemon), kills the CLI with SIGKILL, and times the next `eval 1` of the session from the kill
to its exit. With the command cancelled, that is one command's cost; without, it is the rest of
the killed wait's 3 s. Prints p50 / p90 / max in ms per binary.

    python3 benches/cancel_latency.py [--rounds N] [--abx PATH] [--upstream PATH] [--fixtures PATH]

Defaults: target/release/agent-browser, /work/upstream/node_modules/agent-browser/bin/
agent-browser-linux-x64, target/release/abx-fixtures; the headless shell for both. Every session
is closed and every process this script started is ended by pid.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

FLAGS = "--no-sandbox,--disable-gpu,--disable-background-networking,--disable-component-update,--disable-sync,--no-first-run,--disable-quic"


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def seen(origin, path):
    query = urllib.parse.urlencode({"path": path})
    with urllib.request.urlopen(f"{origin}/nav/seen?{query}", timeout=5) as answer:
        return json.load(answer)["count"]


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--abx", default=os.path.join(repo, "target/release/agent-browser"))
    parser.add_argument(
        "--upstream",
        default="/work/upstream/node_modules/agent-browser/bin/agent-browser-linux-x64",
    )
    parser.add_argument("--fixtures", default=os.path.join(repo, "target/release/abx-fixtures"))
    parser.add_argument("--chrome", default="/usr/bin/chromium-headless-shell")
    args = parser.parse_args()

    fixtures = subprocess.Popen([args.fixtures], stdout=subprocess.PIPE, text=True)
    origin = fixtures.stdout.readline().strip()
    root = tempfile.mkdtemp(prefix="abx-cancel-")
    started = []
    results = {}
    try:
        for name, binary in (("abx", args.abx), ("upstream 0.41.2", args.upstream)):
            home = os.path.join(root, name.split()[0])
            os.makedirs(home, exist_ok=True)
            env = dict(
                os.environ,
                HOME=home,
                TMPDIR=home,
                AGENT_BROWSER_SOCKET_DIR=os.path.join(home, "s"),
                AGENT_BROWSER_EXECUTABLE_PATH=args.chrome,
                AGENT_BROWSER_ARGS=FLAGS,
                AGENT_BROWSER_NO_VERSION_CHECK="1",
                AGENT_BROWSER_SESSION="cancel",
            )
            env.pop("XDG_RUNTIME_DIR", None)

            def cli(*words, check=True):
                done = subprocess.run([binary, *words], env=env, capture_output=True, text=True, timeout=60)
                if check and done.returncode != 0:
                    raise RuntimeError(f"{name} {' '.join(words)}: {done.stderr}")
                return done

            cli("open", f"{origin}/page1.html")
            for variant in ("wait --fn", "wait --text"):
                times = []
                for round_ in range(args.rounds):
                    marker = f"/log?cancel-bench={name.split()[0]}-{round_}"
                    if variant == "wait --fn":
                        words = ["wait", "--fn", f"fetch('{marker}').then(() => false)"]
                    else:
                        words = ["wait", "--text", f"no such text {round_}"]
                    waiting = subprocess.Popen(
                        [binary, *words, "--timeout", "3000"],
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                    started.append(waiting)
                    if variant == "wait --fn":
                        deadline = time.monotonic() + 10
                        while seen(origin, marker) == 0 and time.monotonic() < deadline:
                            time.sleep(0.01)
                    else:
                        # Nothing to observe: give the CLI time to send it (it takes ~10 ms).
                        time.sleep(0.5)
                    os.kill(waiting.pid, signal.SIGKILL)
                    killed = time.monotonic()
                    waiting.wait()
                    cli("eval", "1")
                    times.append((time.monotonic() - killed) * 1000)
                    # Upstream's killed wait may still run in its daemon: let it run out
                    # before the next round.
                    if name != "abx":
                        time.sleep(3.2)
                results[(name, variant)] = times
            cli("close", check=False)
    finally:
        for process in started:
            if process.poll() is None:
                process.kill()
        fixtures.send_signal(signal.SIGTERM)
        fixtures.wait()

    print(f"Next command after the caller of a running `wait` was killed (`eval 1`, kill → exit), "
          f"{args.rounds} rounds, {os.path.basename(args.chrome)}:\n")
    print("| binary | killed command | p50 ms | p90 ms | max ms |")
    print("|---|---|---|---|---|")
    for (name, variant), times in results.items():
        print(f"| {name} | `{variant}` | {percentile(times, 50):.1f} | {percentile(times, 90):.1f} | {max(times):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
