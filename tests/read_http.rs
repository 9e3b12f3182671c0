//! `read <url>` as an HTTP read (no browser, no tab) and the TLS trust it uses: `--ca-cert`
//! rotated or cleared on a running daemon, host name and expiry still checked; `install` with a
//! CA file that holds no certificate. Certificates are made at test time (rcgen).

#![allow(clippy::unwrap_used)] // Test setup: a failing unwrap is a failing test.

use abx_tests::cli::Cli;
use abx_tests::tls::{Ca, HttpsServer};

mod common;

/// An HTTPS server for `localhost` answering every request with a short Markdown body.
fn serve(ca: &Ca, expired: bool) -> HttpsServer {
    HttpsServer::start(
        ca.leaf("localhost", expired).unwrap(),
        "text/markdown",
        "# Secure\n\nTLS works\n",
    )
    .unwrap()
}

fn url(server: &HttpsServer) -> String {
    format!("https://localhost:{}/", server.port)
}

/// A CLI with its own HOME and socket dir, and no launch settings: Chrome arguments in the
/// environment make every command launch first (upstream's rule too), which a URL read alone
/// must not. (The runner clears the environment: no inherited `SSL_CERT_FILE` either.)
fn cli() -> Cli {
    Cli::new().without("AGENT_BROWSER_ARGS")
}

/// `read <url>` with `flags` first: whether it succeeded (a success must not have launched a
/// browser).
fn reads(ab: &Cli, flags: &[&str], url: &str) -> bool {
    let mut args = vec!["--json"];
    args.extend_from_slice(flags);
    args.extend(["read", url, "--timeout", "5000"]);
    let out = ab.run(&args);
    let json = out.json();
    if json["success"] == true {
        assert_eq!(
            json["data"]["lifecycle"]["effectiveLaunch"]["browserLaunched"], false,
            "{json}"
        );
        assert_eq!(json["data"]["content"], "# Secure\n\nTLS works\n", "{json}");
    }
    json["success"] == true
}

#[test]
fn read_of_a_url_launches_no_browser_and_takes_no_tab_id() {
    let site = common::site();
    let ab = cli();
    let json = ab
        .run(&["--json", "read", &site.url("/article.html")])
        .success()
        .json();
    assert_eq!(
        json["data"]["lifecycle"]["effectiveLaunch"]["browserLaunched"], false,
        "{json}"
    );
    assert_eq!(json["data"]["source"], "html-fallback");
    assert_eq!(json["data"]["status"], 200);
    // Upstream's text: blocks as paragraphs, inline markup and link targets gone, code fenced.
    let text = ab.run(&["read", &site.url("/article.html")]).success();
    assert_eq!(
        text.out(),
        "abx fixtures\n\n# Field guide\n\nA short page with headings, a list, a link and some code, for readers that turn pages into text.\n\n## Setup\n\nInstall the tool, then open a page.\n\n- First step\n\n- Second step\n\n## Usage\n\nRead the first page next.\n\n```\nagent-browser open http://127.0.0.1/\n```\n\n### Details\n\nThe last section."
    );
    let missing = ab.run(&["read", &site.url("/no-such-page.html")]).failure();
    assert!(
        missing.stderr.contains("Read failed with HTTP 404"),
        "{missing:?}"
    );
    ab.run(&["close"]).success();
    // With a browser up, a URL read leaves its tabs alone: the next new tab is t2.
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    ab.run(&["read", &site.url("/table.html")]).success();
    let tab = ab.run(&["--json", "tab", "new"]).success().json();
    assert_eq!(tab["data"]["tabId"], "t2", "{tab}");
    let tabs = ab.run(&["--json", "tab", "list"]).success().json();
    assert_eq!(tabs["data"]["tabs"].as_array().map(Vec::len), Some(2));
    ab.run(&["close"]).success();
}

#[test]
fn read_trust_follows_ca_cert_rotation_and_no_ca_cert_on_one_daemon() {
    let (ca_a, ca_b) = (
        Ca::new("abx read test CA a").unwrap(),
        Ca::new("abx read test CA b").unwrap(),
    );
    let a = serve(&ca_a, false);
    let b = serve(&ca_b, false);
    let ab = cli();
    let ca = ab.home().join("ca.pem");
    std::fs::write(&ca, &ca_a.pem).unwrap();
    let ca = ca.to_str().unwrap();
    assert!(!reads(&ab, &[], &url(&a)), "CA a is not trusted yet");
    let pid = ab.daemon_pid();
    assert!(pid.is_some(), "the failed read still ran in the daemon");
    assert!(reads(&ab, &["--ca-cert", ca], &url(&a)));
    assert!(reads(&ab, &[], &url(&a)), "the CA stays for the session");
    assert!(!reads(&ab, &[], &url(&b)));
    // The file is read again for every read: rewriting it switches the trust.
    std::fs::write(ab.home().join("ca.pem"), &ca_b.pem).unwrap();
    assert!(reads(&ab, &[], &url(&b)));
    assert!(!reads(&ab, &[], &url(&a)));
    std::fs::write(ab.home().join("ca.pem"), "invalid certificate").unwrap();
    let broken = ab.run(&["read", &url(&b)]).failure();
    assert!(broken.stderr.contains("ca.pem"), "{broken:?}");
    std::fs::write(ab.home().join("ca.pem"), &ca_b.pem).unwrap();
    assert!(reads(&ab, &[], &url(&b)));
    assert!(!reads(&ab, &["--no-ca-cert"], &url(&b)));
    assert!(!reads(&ab, &[], &url(&b)), "cleared for the session");
    assert_eq!(ab.daemon_pid(), pid, "no daemon restart");
    ab.run(&["close"]).success();
}

#[test]
fn a_trusted_ca_keeps_host_name_and_expiry_checks() {
    let ca = Ca::new("abx read test CA").unwrap();
    let good = serve(&ca, false);
    let expired = serve(&ca, true);
    let ab = cli();
    let path = ab.home().join("ca.pem");
    std::fs::write(&path, &ca.pem).unwrap();
    assert!(reads(
        &ab,
        &["--ca-cert", path.to_str().unwrap()],
        &url(&good)
    ));
    let before = good.requests();
    let by_ip = ab
        .run(&["read", &format!("https://127.0.0.1:{}/", good.port)])
        .failure();
    assert!(by_ip.stderr.contains("not valid for name"), "{by_ip:?}");
    let late = ab.run(&["read", &url(&expired)]).failure();
    assert!(late.stderr.contains("expired"), "{late:?}");
    assert_eq!(
        good.requests(),
        before,
        "no request after a refused handshake"
    );
    assert_eq!(expired.requests(), 0);
    ab.run(&["close"]).success();
}

#[test]
fn install_refuses_a_ca_cert_without_certificates_before_anything() {
    let ab = cli();
    let path = ab.home().join("invalid.pem");
    std::fs::write(&path, "invalid certificate").unwrap();
    let out = ab
        .run(&["--json", "--ca-cert", path.to_str().unwrap(), "install"])
        .failure();
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("invalid.pem"), "{out:?}");
    assert_eq!(out.json()["success"], false);
    assert!(ab.daemon_pid().is_none(), "install starts no daemon");
}
