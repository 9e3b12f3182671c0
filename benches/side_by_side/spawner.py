# Times one CLI invocation at a time for benches/side_by_side/sbs.mjs, the way a shell would:
# spawn → the process exits, nothing else. Node's child_process forks the whole node process
# (3–5 ms per spawn on the 2-vCPU machine, more than the fixed cost being measured); Python's
# subprocess spawns with vfork, about as cheap as a shell. One JSON request per stdin line
# ({"argv", "env", "cwd", "timeout"}), one JSON reply per stdout line ({"rc", "ms", "stdout",
# "stderr"}). stdout and stderr go to files, so a detached daemon that kept a pipe open could not
# hold the timing; they are read after the clock stops.
#
# The wait is a blocking waitpid, with the timeout enforced by an interval timer (SIGALRM) whose
# handler kills the child; waitpid is retried after the signal and returns once the child is gone. `Popen.wait(timeout=...)` must not be used here: CPython implements it as a WNOHANG poll
# that sleeps 1, 2, 4, 8, 16, 32, 50 ms between tries, so every sample would be rounded up to the
# next of ~1, 3, 7, 15, 31, 63 ms after the spawn (an earlier version of this file did that, and
# every CLI figure it produced carried the rounding; in-process Playwright calls did not).
import json
import os
import subprocess
import sys
import signal
import tempfile
import time

KEEP = 64 * 1024


def main():
    scratch = tempfile.mkdtemp(prefix="abxs-spawn-")
    out_path = os.path.join(scratch, "stdout")
    err_path = os.path.join(scratch, "stderr")
    try:
        for line in sys.stdin:
            req = json.loads(line)
            reply = run(req, out_path, err_path)
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    finally:
        for path in (out_path, err_path):
            try:
                os.unlink(path)
            except OSError:
                pass
        os.rmdir(scratch)


def run(req, out_path, err_path):
    rc = None
    ms = 0.0
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        try:
            child = subprocess.Popen(
                req["argv"],
                env=req["env"],
                cwd=req.get("cwd"),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )
        except OSError as e:
            return {"rc": 127, "ms": 0.0, "stdout": "", "stderr": str(e)}
        timed_out = []

        def on_timeout(_signum, _frame):
            timed_out.append(True)
            child.kill()

        signal.signal(signal.SIGALRM, on_timeout)
        signal.setitimer(signal.ITIMER_REAL, req.get("timeout", 60))
        try:
            rc = child.wait()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        ms = (time.perf_counter() - started) * 1e3
        if timed_out:
            rc = None
    return {"rc": rc, "ms": ms, "stdout": tail(out_path), "stderr": tail(err_path)}


def tail(path):
    with open(path, "rb") as f:
        return f.read(KEEP).decode("utf-8", "replace")


if __name__ == "__main__":
    main()
