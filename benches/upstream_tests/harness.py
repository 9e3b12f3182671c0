#!/usr/bin/env python3
"""Runs upstream agent-browser's black-box CLI tests (cli/tests/*.rs of a checkout of
vercel-labs/agent-browser) against any agent-browser binaries. See README.md next to this file.

Nothing of upstream is kept in our repository: the test files are read from --upstream-src and put
into a scratch Cargo project under --work (default /tmp/uptests/work), where only the binary path
(`env!("CARGO_BIN_EXE_agent-browser")` -> `env!("AB_BIN")`) and outside URLs are rewritten, and the
TLS fixtures are generated with openssl.
"""

import argparse
import datetime
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

CHROME_ARGS = ",".join([
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
])

# Crates the test files use, by the name they appear under in code. Only those a copied file
# mentions go into the scratch Cargo.toml. rustls gets `ring` only (no aws-lc build).
DEV_DEPS = {
    "serde_json": 'serde_json = "1"',
    "tempfile": 'tempfile = "3"',
    "libc": 'libc = "0.2"',
    "chrono": 'chrono = { version = "0.4", default-features = false, features = ["clock", "std"] }',
    "rustls": 'rustls = { version = "0.23", default-features = false, features = ["ring", "std", "tls12", "logging"] }',
    "rustls_pemfile": 'rustls-pemfile = "2"',
    "serde": 'serde = { version = "1", features = ["derive"] }',
    "regex": 'regex = "1"',
}

# Tests that are not checks of their own: helpers another test starts as a child process.
NOT_CHECKS = {
    "startup_lock_holder_process": "helper process of startup_recovers_after_lock_owner_is_killed",
}

BIN_MACRO = 'env!("CARGO_BIN_EXE_agent-browser")'


def log(msg):
    print(f"[uptests {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def write_if_changed(path, data):
    """Keeps mtimes of unchanged files so cargo rebuilds nothing it does not have to."""
    if isinstance(data, str):
        data = data.encode()
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return True


def closed_loopback_port():
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rewrite_source(text, closed_url):
    text = text.replace(BIN_MACRO, 'env!("AB_BIN")')
    # Outside URLs that a test opens: point them at a closed loopback port. Hostnames used only as
    # strings (dashboard origins, *.example domains that never resolve) stay as they are.
    text = re.sub(r'"https?://(www\.)?example\.(com|org)/?"', f'"{closed_url}"', text)
    return text


# ---------------------------------------------------------------------------------------------
# TLS fixtures (tls_cli.rs): CA a and b, a localhost server certificate signed by each, an expired
# leaf signed by CA a with server a's key, and a self-signed certificate for the Chrome for Testing
# manifest host that the install test's proxy serves.

def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def gen_tls(dest):
    stamp = os.path.join(dest, ".generated")
    if os.path.exists(stamp):
        return
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)

    def conf(name, cn, ext):
        path = os.path.join(tmp, f"{name}.cnf")
        with open(path, "w") as f:
            f.write(f"[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = {cn}\n[ext]\n{ext}\n")
        return path

    def key(name):
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-out", f"{name}.key", cwd=tmp)

    ca_ext = ("basicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\n"
              "subjectKeyIdentifier = hash")
    leaf_ext = ("basicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\n"
                "extendedKeyUsage = serverAuth\nsubjectAltName = DNS:localhost\n"
                "subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid")
    for ca in ("a", "b"):
        key(f"ca-{ca}")
        c = conf(f"ca-{ca}", f"upstream-tests CA {ca}", ca_ext)
        openssl("req", "-x509", "-new", "-key", f"ca-{ca}.key", "-config", c, "-extensions", "ext",
                "-days", "3650", "-sha256", "-out", f"ca-{ca}.pem", cwd=tmp)
        key(f"server-{ca}")
        c = conf(f"server-{ca}", "localhost", leaf_ext)
        openssl("req", "-new", "-key", f"server-{ca}.key", "-config", c, "-out", f"server-{ca}.csr",
                cwd=tmp)
        openssl("x509", "-req", "-in", f"server-{ca}.csr", "-CA", f"ca-{ca}.pem", "-CAkey",
                f"ca-{ca}.key", "-set_serial", str(int.from_bytes(os.urandom(8), "big")),
                "-days", "365", "-sha256", "-extfile", c, "-extensions", "ext",
                "-out", f"server-{ca}.pem", cwd=tmp)
    # OpenSSL 3.0's x509 cannot set past dates; `openssl ca` can.
    os.makedirs(os.path.join(tmp, "ca-db"))
    open(os.path.join(tmp, "ca-db", "index.txt"), "w").close()
    with open(os.path.join(tmp, "ca-db", "serial"), "w") as f:
        f.write("1000\n")
    with open(os.path.join(tmp, "ca.cnf"), "w") as f:
        f.write("[ca]\ndefault_ca = d\n[d]\ndir = ca-db\ndatabase = ca-db/index.txt\n"
                "new_certs_dir = ca-db\nserial = ca-db/serial\ndefault_md = sha256\n"
                "policy = p\nunique_subject = no\ncopy_extensions = none\n[p]\ncommonName = supplied\n"
                f"[ext]\n{leaf_ext}\n")
    openssl("ca", "-batch", "-config", "ca.cnf", "-cert", "ca-a.pem", "-keyfile", "ca-a.key",
            "-in", "server-a.csr", "-startdate", "20200101000000Z", "-enddate", "20200201000000Z",
            "-extensions", "ext", "-notext", "-out", "expired.pem", cwd=tmp)
    key("install")
    c = conf("install", "googlechromelabs.github.io",
             "basicConstraints = critical,CA:FALSE\nkeyUsage = critical,digitalSignature\n"
             "extendedKeyUsage = serverAuth\nsubjectAltName = DNS:googlechromelabs.github.io")
    openssl("req", "-x509", "-new", "-key", "install.key", "-config", c, "-extensions", "ext",
            "-days", "365", "-sha256", "-out", "install.pem", cwd=tmp)

    def verify(ca, cert, host, ok, *extra):
        r = subprocess.run(["openssl", "verify", *extra, "-verify_hostname", host, "-CAfile", ca,
                            cert], cwd=tmp, capture_output=True, text=True)
        if (r.returncode == 0) != ok:
            raise SystemExit(f"TLS fixture check failed: openssl verify {ca} {cert} -> "
                             f"{r.stdout}{r.stderr}")
    verify("ca-a.pem", "server-a.pem", "localhost", True)
    verify("ca-b.pem", "server-b.pem", "localhost", True)
    verify("ca-b.pem", "server-a.pem", "localhost", False)
    verify("ca-a.pem", "server-b.pem", "localhost", False)
    verify("ca-a.pem", "server-a.pem", "127.0.0.1", False)
    verify("ca-a.pem", "expired.pem", "localhost", False)
    verify("ca-a.pem", "expired.pem", "localhost", True, "-no_check_time")
    verify("install.pem", "install.pem", "googlechromelabs.github.io", True, "-partial_chain")
    os.makedirs(dest, exist_ok=True)
    for name in ("ca-a.pem", "ca-b.pem", "server-a.pem", "server-a.key", "server-b.pem",
                 "server-b.key", "expired.pem", "install.pem", "install.key"):
        shutil.copy(os.path.join(tmp, name), os.path.join(dest, name))
    shutil.rmtree(tmp)
    open(stamp, "w").close()
    log(f"generated TLS fixtures in {dest} (checked with openssl verify)")


# ---------------------------------------------------------------------------------------------
# The scratch project

def make_project(src, work, only_files):
    tests_src = os.path.join(src, "cli", "tests")
    if not os.path.isdir(tests_src):
        raise SystemExit(f"{tests_src} not found: --upstream-src must be a checkout of "
                         "vercel-labs/agent-browser")
    proj = os.path.join(work, "project")
    tests_dst = os.path.join(proj, "tests")
    os.makedirs(tests_dst, exist_ok=True)
    closed = f"http://127.0.0.1:{closed_loopback_port()}"
    port_file = os.path.join(work, "closed-url")
    # Keep the same closed URL between runs so the sources (and the build) stay the same.
    if os.path.exists(port_file):
        closed = open(port_file).read().strip()
    else:
        os.makedirs(work, exist_ok=True)
        with open(port_file, "w") as f:
            f.write(closed)
    files = sorted(f for f in os.listdir(tests_src) if f.endswith(".rs"))
    if only_files:
        files = [f for f in files if f[:-3] in only_files]
    used = set()
    wanted = set()
    for f in files:
        text = open(os.path.join(tests_src, f), encoding="utf-8").read()
        text = rewrite_source(text, closed)
        for crate in DEV_DEPS:
            if re.search(rf"\b{crate}::", text):
                used.add(crate)
        write_if_changed(os.path.join(tests_dst, f), text)
        wanted.add(f)
    for f in os.listdir(tests_dst):
        if f.endswith(".rs") and f not in wanted:
            os.remove(os.path.join(tests_dst, f))
    fixtures_src = os.path.join(tests_src, "fixtures")
    fixtures_dst = os.path.join(tests_dst, "fixtures")
    if os.path.isdir(fixtures_src):
        for root, _dirs, names in os.walk(fixtures_src):
            rel = os.path.relpath(root, fixtures_src)
            if rel.split(os.sep)[0] == "tls":
                continue  # generated below
            for n in names:
                with open(os.path.join(root, n), "rb") as fh:
                    write_if_changed(os.path.join(fixtures_dst, rel, n), fh.read())
    gen_tls(os.path.join(fixtures_dst, "tls"))
    deps = "\n".join(DEV_DEPS[c] for c in sorted(used))
    cargo = f"""[package]
name = "upstream-cli-tests"
# tests write CARGO_PKG_VERSION into a fake daemon's .version file: the version under test
version = "0.41.2"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"

[features]
camoufox-integration = []

[dev-dependencies]
{deps}

[workspace]
"""
    write_if_changed(os.path.join(proj, "Cargo.toml"), cargo)
    write_if_changed(os.path.join(proj, "src", "lib.rs"), "// upstream's tests drive a binary\n")
    return proj, [f[:-3] for f in files], closed


def source_digest(proj):
    h = hashlib.sha256()
    for root, _dirs, names in sorted(os.walk(proj)):
        if "/target" in root:
            continue
        for n in sorted(names):
            p = os.path.join(root, n)
            h.update(p.encode())
            with open(p, "rb") as f:
                h.update(f.read())
    return h.hexdigest()


def build(proj, work, label, binary, targets, jobs):
    """Builds every test target with AB_BIN=binary; returns {target: exe} and {target: error}.

    env! is read at compile time, so each binary needs its own build of the test crates; the
    dependencies are shared through one target dir, and each binary's executables are copied
    aside (the next build overwrites them in place)."""
    exe_dir = os.path.join(work, "exe", label)
    st = os.stat(binary)
    # The harness itself is part of the stamp: a change to how it builds must rebuild.
    with open(__file__, "rb") as f:
        me = hashlib.sha256(f.read()).hexdigest()[:16]
    stamp_val = f"{source_digest(proj)} {me} {binary} {st.st_size} {st.st_mtime_ns}"
    stamp = os.path.join(exe_dir, "stamp.json")
    if os.path.exists(stamp):
        saved = json.load(open(stamp))
        if saved.get("stamp") == stamp_val and all(
                os.path.exists(p) for p in saved["exes"].values()):
            log(f"{label}: test executables up to date")
            return saved["exes"], saved["errors"]
    log(f"{label}: building the test executables with AB_BIN={binary}")
    env = dict(os.environ)
    env.update(AB_BIN=binary, CARGO_TARGET_DIR=os.path.join(work, "target"),
               CARGO_BUILD_JOBS=str(jobs), CARGO_TERM_COLOR="never")
    cmd = ["cargo", "build", "--tests", "--keep-going",
           "--message-format=json-render-diagnostics"]
    r = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True)
    built = {}
    for line in r.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                "test" in msg["target"]["kind"]:
            built[msg["target"]["name"]] = msg["executable"]
    os.makedirs(exe_dir, exist_ok=True)
    exes, errors = {}, {}
    for t in targets:
        if t in built:
            dst = os.path.join(exe_dir, t)
            if os.path.exists(dst):
                os.remove(dst)  # a new inode: an old run may still execute the previous one
            shutil.copy2(built[t], dst)
            exes[t] = dst
        else:
            # rustc's rendered errors for this file (first error line and location)
            m = re.search(rf"error(\[E\d+\])?: [^\n]*\n\s*--> tests/{re.escape(t)}\.rs[^\n]*",
                          r.stderr)
            errors[t] = m.group(0).replace("\n", " ") if m else "did not compile"
    with open(os.path.join(exe_dir, "build.log"), "w") as f:
        f.write(r.stderr)
    json.dump({"stamp": stamp_val, "exes": exes, "errors": errors}, open(stamp, "w"), indent=1)
    log(f"{label}: {len(exes)} test files built, {len(errors)} did not compile "
        f"(see {exe_dir}/build.log)")
    return exes, errors


def list_tests(exe):
    r = subprocess.run([exe, "--list"], capture_output=True, text=True, check=True)
    return [line[:-len(": test")] for line in r.stdout.splitlines() if line.endswith(": test")]


# ---------------------------------------------------------------------------------------------
# Running one test and cleaning up after it

def procs_marked(marker):
    """PIDs whose environment or command line contains marker (a test's scratch dir)."""
    found = []
    me = os.getpid()
    mark = marker.encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                env = f.read()
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if mark in env or mark in cmd:
            found.append(int(d))
    return found


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def close_leftovers(marker):
    """Ends what a test left running, by PID, only processes carrying its scratch dir. Returns
    their command names."""
    pids = [p for p in procs_marked(marker) if pid_alive(p)]
    names = []
    for p in pids:
        try:
            with open(f"/proc/{p}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            names.append("?")
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in pids:
            try:
                os.kill(p, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + 3
        while time.time() < deadline and any(pid_alive(p) for p in pids):
            time.sleep(0.05)
        pids = [p for p in pids if pid_alive(p)]
        if not pids:
            break
    return names


def failure_excerpt(name, out, lines=15):
    m = re.search(rf"---- {re.escape(name)} stdout ----\n(.*?)\n\nfailures:\n", out, re.S)
    body = m.group(1) if m else out
    body = [l if len(l) <= 700 else l[:700] + " …" for l in body.rstrip().splitlines()
            if not l.startswith("note: run with `RUST_BACKTRACE")]
    return "\n".join(body[-lines:])


class Runner:
    def __init__(self, work, chrome, timeout):
        self.root = os.path.join(work, "r")  # short: unix socket paths live under it
        self.logs = os.path.join(work, "logs")
        self.chrome = chrome
        self.timeout = timeout
        self.n = 0
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)

    def run(self, label, exe, target, name):
        self.n += 1
        scratch = os.path.join(self.root, str(self.n))
        home, tmp = os.path.join(scratch, "h"), os.path.join(scratch, "t")
        os.makedirs(home)
        os.makedirs(tmp)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AGENT_BROWSER_") and not k.startswith("CARGO")
               and k not in ("XDG_RUNTIME_DIR", "AB_BIN", "RUST_BACKTRACE")}
        env.update(HOME=home, TMPDIR=tmp, AGENT_BROWSER_EXECUTABLE_PATH=self.chrome,
                   AGENT_BROWSER_ARGS=CHROME_ARGS, AGENT_BROWSER_NO_VERSION_CHECK="1",
                   AGENT_BROWSER_TEST_CHROME=self.chrome, UPTESTS_SCRATCH=scratch)
        t0 = time.time()
        p = subprocess.Popen([exe, "--exact", name, "--include-ignored", "--test-threads=1"],
                             cwd=scratch, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=self.timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, _ = p.communicate()
            timed_out = True
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM): take the test and what it started down with us.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            close_leftovers(scratch)
            raise
        secs = time.time() - t0
        out = out.decode("utf-8", "replace")
        left = close_leftovers(scratch)
        passed = (not timed_out and p.returncode == 0 and "running 1 test" in out
                  and "1 passed" in out)
        status = "timeout" if timed_out else ("pass" if passed else "fail")
        os.makedirs(os.path.join(self.logs, label), exist_ok=True)
        logname = os.path.join(self.logs, label, f"{target}--{name.replace('::', '-')}.log")
        with open(logname, "w") as f:
            f.write(out)
            if left:
                f.write(f"\n[uptests] closed after the test: {', '.join(left)}\n")
        excerpt = None
        if status != "pass":
            excerpt = failure_excerpt(name, out)
            if timed_out:
                excerpt += f"\n(timed out after {self.timeout} s)"
        shutil.rmtree(scratch, ignore_errors=True)
        return {"status": status, "secs": round(secs, 1), "left": left, "excerpt": excerpt,
                "log": logname}


# ---------------------------------------------------------------------------------------------

def version_of(binary):
    try:
        r = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=20,
                           env={**os.environ, "AGENT_BROWSER_NO_VERSION_CHECK": "1"})
        return r.stdout.strip() or r.stderr.strip()
    except Exception as e:  # noqa: BLE001 - a report line, not control flow
        return f"? ({e})"


def cell(res):
    if res is None:
        return "–"
    s = {"pass": "pass", "fail": "**FAIL**", "timeout": "**timeout**", "n/c": "n/c"}[res["status"]]
    if res["status"] in ("pass", "fail", "timeout"):
        s += f" {res['secs']:.0f}s"
    if res.get("left"):
        s += f" (left {len(res['left'])})"
    return s


def render(report):
    labels = [b["label"] for b in report["bins"]]
    up_runs = report["upstream_runs"]
    rows = report["rows"]
    valid = [r for r in rows if r["valid"]]
    out = []
    out.append("# Upstream's black-box CLI tests against abx\n")
    out.append(f"Run {report['date']} on {report['machine']}; Chrome: {report['chrome']}.\n")
    out.append(f"Command: `{report['command']}`\n")
    out.append(f"- upstream: `{report['upstream_bin']}` ({report['upstream_version']}), "
               f"run {len(up_runs)} times")
    for b in report["bins"]:
        out.append(f"- {b['label']}: `{b['path']}` ({b['version']})")
    out.append(f"- tests: `{report['upstream_src']}/cli/tests/*.rs` "
               f"({len(report['files'])} files, {len(rows)} tests)\n")
    out.append(f"**{len(valid)} valid checks** (pass on upstream in every run).")
    for lab in labels:
        ok = [r for r in valid if r["bins"][lab] and r["bins"][lab]["status"] == "pass"]
        extra = [r for r in rows if not r["valid"] and r["bins"][lab]
                 and r["bins"][lab]["status"] == "pass"]
        out.append(f"**{lab} passes {len(ok)} of {len(valid)}**"
                   + (f" (and {len(extra)} tests that upstream does not pass every time: "
                      + ", ".join(f"`{r['test']}`" for r in extra) + ")" if extra else "") + ".")
    out.append("")
    head = ["file", "test", "valid"] + [f"upstream {i + 1}" for i in range(len(up_runs))] + labels
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for r in rows:
        cells = [r["file"], f"`{r['test']}`", "yes" if r["valid"] else ""]
        cells += [cell(run.get(r["key"])) for run in up_runs]
        cells += [cell(r["bins"][lab]) for lab in labels]
        out.append("| " + " | ".join(cells) + " |")
    if report["not_compiled"]:
        out.append("\n## Files that do not compile (not counted)\n")
        for f, e in sorted(report["not_compiled"].items()):
            out.append(f"- `{f}.rs`: {e}")
    out.append("\n## Failing valid checks\n")
    for lab in labels:
        fails = [r for r in valid if r["bins"][lab] and r["bins"][lab]["status"] != "pass"]
        out.append(f"### {lab}: {len(fails)} failing\n")
        for r in fails:
            res = r["bins"][lab]
            out.append(f"#### {r['file']} :: {r['test']} ({res['status']})\n")
            out.append("```\n" + (res["excerpt"] or "").replace("```", "'''") + "\n```\n")
    leaks = []
    for r in rows:
        for i, run in enumerate(up_runs):
            res = run.get(r["key"])
            if res and res.get("left"):
                leaks.append((f"upstream {i + 1}", r, res["left"]))
        for lab in labels:
            res = r["bins"][lab]
            if res and res.get("left"):
                leaks.append((lab, r, res["left"]))
    if leaks:
        out.append("## Processes left running after a test (closed by the harness)\n")
        for lab, r, left in leaks:
            out.append(f"- {lab}: {r['file']} :: {r['test']}: {', '.join(left)}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream-src", required=True,
                    help="checkout of vercel-labs/agent-browser (reads cli/tests/*.rs)")
    ap.add_argument("--upstream-bin", help="upstream's binary; its passes decide the valid checks")
    ap.add_argument("--upstream-results", help="reuse upstream's outcomes from an earlier run's "
                    "JSON (written next to --out) instead of running upstream")
    ap.add_argument("--upstream-runs", type=int, default=2)
    ap.add_argument("--bin", action="append", default=[], metavar="LABEL=PATH",
                    help="a binary to check (repeatable)")
    ap.add_argument("--out", required=True, help="markdown results file (also writes OUT.json)")
    ap.add_argument("--only", help="regex over 'file::test' (e.g. 'tls_cli|doctor')")
    ap.add_argument("--files", help="comma-separated test file stems to use (default: all)")
    ap.add_argument("--work", default="/tmp/uptests/work",
                    help="scratch dir: project, target dir, logs (outside our repository)")
    ap.add_argument("--chrome", default="/usr/bin/chromium")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per test")
    ap.add_argument("--jobs", type=int, default=2, help="cargo build jobs")
    a = ap.parse_args()
    if not a.upstream_bin and not a.upstream_results:
        ap.error("give --upstream-bin or --upstream-results")

    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    # One run per work dir: two would overwrite each other's executables and scratch dirs.
    lock = open(os.path.join(work, "lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise SystemExit(f"another run uses {work}; give this one its own --work")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    src = os.path.abspath(a.upstream_src)
    bins = []
    for spec in a.bin:
        label, _, path = spec.partition("=")
        if not path:
            ap.error(f"--bin {spec}: expected LABEL=PATH")
        bins.append({"label": label, "path": os.path.abspath(path)})
    only = re.compile(a.only) if a.only else None
    files_filter = set(a.files.split(",")) if a.files else None

    proj, files, closed = make_project(src, work, files_filter)
    log(f"scratch project {proj}: {len(files)} test files; outside URLs -> {closed}")

    prev = None
    if a.upstream_results:
        prev = json.load(open(a.upstream_results))
    builds = {}
    labels_to_build = ([] if prev else [("upstream", os.path.abspath(a.upstream_bin))]) + \
        [(b["label"], b["path"]) for b in bins]
    for label, path in labels_to_build:
        builds[label] = build(proj, work, label, path, files, a.jobs)

    # The test list comes from the first build (all builds compile the same sources).
    first = next(iter(builds.values()))
    not_compiled = dict(first[1])
    tests = []
    for f in files:
        exe = first[0].get(f)
        if not exe:
            continue
        for name in list_tests(exe):
            key = f"{f}::{name}"
            if name.split("::")[-1] in NOT_CHECKS:
                continue
            if only and not only.search(key):
                continue
            tests.append((f, name, key))
    log(f"{len(tests)} tests selected")

    runner = Runner(work, a.chrome, a.timeout)
    up_runs = []
    if prev:
        up_runs = prev["upstream_runs"]
        missing = [k for _, _, k in tests if not all(k in r for r in up_runs)]
        if missing:
            log(f"warning: {len(missing)} tests have no upstream outcome in {a.upstream_results}")
    else:
        exes = builds["upstream"][0]
        for i in range(a.upstream_runs):
            run = {}
            for f, name, key in tests:
                run[key] = runner.run(f"upstream-{i + 1}", exes[f], f, name)
                log(f"upstream run {i + 1}: {key}: {run[key]['status']} ({run[key]['secs']} s)")
            up_runs.append(run)

    rows = []
    for f, name, key in tests:
        valid = all(r.get(key, {}).get("status") == "pass" for r in up_runs)
        rows.append({"file": f, "test": name, "key": key, "valid": valid, "bins": {}})
    for b in bins:
        exes, errors = builds[b["label"]]
        for row in rows:
            exe = exes.get(row["file"])
            if not exe:
                row["bins"][b["label"]] = {"status": "n/c", "excerpt": errors.get(row["file"]),
                                           "left": []}
                continue
            res = runner.run(b["label"], exe, row["file"], row["test"])
            row["bins"][b["label"]] = res
            log(f"{b['label']}: {row['key']}: {res['status']} ({res['secs']} s)"
                + (" [valid check]" if row["valid"] else ""))
        b["version"] = version_of(b["path"])

    chrome_version = subprocess.run([a.chrome, "--version"], capture_output=True,
                                    text=True).stdout.strip()
    report = {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": f"{os.cpu_count()} cores",
        "chrome": chrome_version,
        "command": " ".join(["benches/upstream_tests/run.sh"] + sys.argv[1:]),
        "upstream_src": src,
        "upstream_bin": prev["upstream_bin"] if prev else os.path.abspath(a.upstream_bin),
        "upstream_version": prev["upstream_version"] if prev else version_of(a.upstream_bin),
        "bins": bins,
        "files": files,
        "not_compiled": not_compiled,
        "upstream_runs": up_runs,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(render(report))
    with open(a.out + ".json", "w") as f:
        json.dump(report, f, indent=1)
    log(f"wrote {a.out} and {a.out}.json")


if __name__ == "__main__":
    main()
