//! The navigation corpus (docs/navigation-corpus.md): every way a real site moves a tab — server
//! redirect chains, client redirects at every moment of the load, meta refresh, form POSTs,
//! the history API, fragments, 204s, downloads, error pages, stuck subresources, interrupted
//! navigations, back/forward — driven through the binary on the headless shell and on full
//! Chromium, asserting what the tab really shows: what `open` prints, that `get url`/`get title`
//! agree, where `back` goes, and that `click #go` on a launcher page lands where `open` does.
//!
//! Expected values are upstream 0.41.2's answers (benches/navcorpus/run.sh records them side by
//! side) where upstream is right; where upstream is wrong or times out (a page whose load never
//! ends, a meta refresh read before it moved), the page the tab really shows. Every session runs
//! with a 5 s command timeout, far below the default 25 s: a navigation that never settles fails
//! fast instead of waiting the default out, and no assertion is about time. Each binary gets one
//! session reused across patterns; a failing pattern is recorded with its name, the session is
//! closed so the next pattern starts clean, and the test fails once at the end with the list.

use std::process::Child;
use std::sync::mpsc;
use std::time::Duration;

use abx_fixtures::FixtureServer;
use abx_tests::cli::{Cli, Output, finish};

mod common;

const SHELL: &str = "/usr/bin/chromium-headless-shell";
const FULL: &str = "/usr/bin/chromium";

/// The command timeout of every session here (ms): far below the default 25 s.
const COMMAND_TIMEOUT_MS: &str = "5000";
/// A command that has not answered by then hangs (its own timeout is 5 s); it is killed and the
/// pattern fails. Not a timing assertion: only a guard so a hang cannot stall the file.
const HANG_LIMIT: Duration = Duration::from_secs(30);
/// How long a spawned command may take to make the browser ask for the URL its step waits for.
const REQUEST_LIMIT: Duration = Duration::from_secs(10);

/// The Chrome a session runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Shell,
    Full,
}

impl Kind {
    fn tag(self) -> &'static str {
        match self {
            Kind::Shell => "shell",
            Kind::Full => "full",
        }
    }
}

/// What one command must answer.
#[derive(Clone, Debug)]
enum Want {
    /// `open` printed `✓ <title>\n  <url>`.
    Page(String, String),
    /// `open` printed `✓ <any title>\n  <url>`.
    PageAt(String),
    /// Exit 0 and exactly this on stdout.
    Prints(String),
    /// Exit 0.
    Succeeds,
    /// A non-zero exit whose stderr contains this.
    Fails(&'static str),
    /// Exit 0 and stdout that contains this.
    Contains(String),
    /// Any of these.
    Either(Vec<Want>),
}

impl Want {
    fn accepts(&self, out: &Output) -> bool {
        match self {
            Want::Page(url, title) => out.code == 0 && out.out() == format!("✓ {title}\n  {url}"),
            Want::PageAt(url) => {
                let mut lines = out.out().lines();
                out.code == 0
                    && lines.next().is_some_and(|l| l.starts_with('✓'))
                    && lines.next() == Some(format!("  {url}").as_str())
                    && lines.next().is_none()
            }
            Want::Prints(text) => out.code == 0 && out.out() == text,
            Want::Succeeds => out.code == 0,
            Want::Fails(text) => out.code > 0 && out.stderr.contains(text),
            Want::Contains(text) => out.code == 0 && out.stdout.contains(text.as_str()),
            Want::Either(all) => all.iter().any(|w| w.accepts(out)),
        }
    }
}

fn page(url: impl Into<String>, title: &str) -> Want {
    Want::Page(url.into(), title.into())
}

fn prints(text: impl Into<String>) -> Want {
    Want::Prints(text.into())
}

/// One step of a pattern.
#[derive(Clone, Debug)]
enum Step {
    /// Run a command to its end; its answer must be `want`.
    Run(Vec<String>, Want),
    /// Start a command and go on once the browser asked the fixture server for `until` (path and
    /// query, exactly); its answer is checked by the next `Join`.
    Spawn(Vec<String>, String),
    /// The spawned command's answer must be `want`.
    Join(Want),
    /// Run a command again until its answer is `want` (a popup learns its URL a moment after
    /// the page that opened it loaded), for at most 5 s.
    Eventually(Vec<String>, Want),
}

fn run(args: &[&str], want: Want) -> Step {
    Step::Run(args.iter().map(|a| (*a).to_string()).collect(), want)
}

fn cmd(line: &str, want: Want) -> Step {
    Step::Run(line.split(' ').map(str::to_string).collect(), want)
}

/// A pattern: its name, whether it needs a session of its own afterwards, and its steps.
struct Pattern {
    id: String,
    isolate: bool,
    steps: Vec<Step>,
}

/// Where the standard walk's `open` (or click) ends.
#[derive(Clone, Debug)]
enum Lands {
    /// This page (`None`: any title).
    Page(String, Option<&'static str>),
    /// The page before stays (a 204, a download): `open` fails as upstream's does
    /// (`net::ERR_ABORTED`) or prints the page that stayed.
    Stays,
    /// Chrome's error page: `open` fails with upstream's message.
    Error(&'static str),
    /// First this page, then (a timer, a 1 s refresh) the landing page at this URL.
    Later(String, String),
}

/// A pattern that takes the standard walk (see [`walk`]).
struct Walk {
    id: String,
    url: String,
    lands: Lands,
    /// Where the launcher's click ends, when not where `open` does.
    click_lands: Option<Lands>,
    /// Where `back` after the click goes (URL, title): `None` is the launcher the click started
    /// from.
    back: Option<(String, String)>,
    /// The page `back` goes to moves on by itself (a timer): only what `back` prints is checked.
    back_moves_on: bool,
    /// The load event never fires (a subresource never finishes).
    load_never_fires: bool,
    isolate: bool,
    extra: Vec<Step>,
}

impl Walk {
    fn new(id: impl Into<String>, url: impl Into<String>, lands: Lands) -> Walk {
        Walk {
            id: id.into(),
            url: url.into(),
            lands,
            click_lands: None,
            back: None,
            back_moves_on: false,
            load_never_fires: false,
            isolate: false,
            extra: Vec::new(),
        }
    }

    fn click_lands(mut self, lands: Lands) -> Walk {
        self.click_lands = Some(lands);
        self
    }

    fn back_to(mut self, url: impl Into<String>, title: &str) -> Walk {
        self.back = Some((url.into(), title.into()));
        self
    }

    /// `back` goes to `url`, a page that then moves on by itself.
    fn back_to_moving(mut self, url: impl Into<String>) -> Walk {
        self.back = Some((url.into(), String::new()));
        self.back_moves_on = true;
        self
    }

    fn load_never_fires(mut self) -> Walk {
        self.load_never_fires = true;
        self
    }

    fn isolate(mut self) -> Walk {
        self.isolate = true;
        self
    }

    fn then(mut self, step: Step) -> Walk {
        self.extra.push(step);
        self
    }
}

fn launcher(site: &FixtureServer, to: &str, n: u8) -> String {
    site.url(&format!(
        "/nav/links.html?to={}&n={n}",
        percent_encode_component(to)
    ))
}

/// `encodeURIComponent`.
fn percent_encode_component(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What `open`, and then `get url` and `get title`, must answer for `lands`, coming from `from`.
fn arrival(lands: &Lands, url: &str, from: &(String, String)) -> Vec<Step> {
    let (from_url, from_title) = from;
    match lands {
        Lands::Page(at, title) => vec![
            run(
                &["open", url],
                match title {
                    Some(title) => page(at.clone(), title),
                    None => Want::PageAt(at.clone()),
                },
            ),
            cmd("get url", prints(at.clone())),
            cmd(
                "get title",
                title.map_or(Want::Succeeds, |t| prints(t.to_string())),
            ),
        ],
        Lands::Stays => vec![
            run(
                &["open", url],
                Want::Either(vec![
                    Want::Fails("✗ Navigation failed: net::ERR_ABORTED"),
                    page(from_url.clone(), from_title),
                ]),
            ),
            cmd("get url", prints(from_url.clone())),
            cmd("get title", prints(from_title.clone())),
        ],
        Lands::Error(message) => vec![
            run(&["open", url], Want::Fails(message)),
            cmd(
                "get url",
                Want::Either(vec![prints("chrome-error://chromewebdata/"), prints(url)]),
            ),
        ],
        Lands::Later(first, landed) => vec![
            run(
                &["open", url],
                Want::Either(vec![
                    Want::PageAt(first.clone()),
                    page(landed.clone(), "Landed"),
                ]),
            ),
            run(&["wait", "--url", landed], Want::Succeeds),
            cmd("get url", prints(landed.clone())),
            cmd("get title", prints("Landed")),
        ],
    }
}

/// The same after `click #go` on the launcher `from`.
fn click_arrival(lands: &Lands, url: &str, from: &(String, String), load_fires: bool) -> Vec<Step> {
    let (from_url, from_title) = from;
    let mut steps = vec![cmd("click #go", Want::Succeeds)];
    if load_fires {
        steps.push(cmd("wait --load load", Want::Succeeds));
    } else {
        steps.push(cmd("wait --load domcontentloaded", Want::Succeeds));
    }
    match lands {
        Lands::Page(at, title) => {
            steps.push(cmd("get url", prints(at.clone())));
            if let Some(title) = title {
                steps.push(cmd("get title", prints(*title)));
            }
        }
        Lands::Stays => {
            steps.push(cmd("get url", prints(from_url.clone())));
            steps.push(cmd("get title", prints(from_title.clone())));
        }
        Lands::Error(_) => steps.push(cmd(
            "get url",
            Want::Either(vec![prints("chrome-error://chromewebdata/"), prints(url)]),
        )),
        Lands::Later(_, landed) => {
            steps.push(run(&["wait", "--url", landed], Want::Succeeds));
            steps.push(cmd("get url", prints(landed.clone())));
            steps.push(cmd("get title", prints("Landed")));
        }
    }
    steps
}

/// The standard walk: launcher 1, `open <url>` (what it prints, `get url`, `get title`, then the
/// pattern's own checks of that page), launcher 2, `click #go` to the same URL (where it lands),
/// `back` (where it goes, `get url`, `get title`).
fn walk(site: &FixtureServer, w: Walk) -> Pattern {
    let l1 = (launcher(site, &w.url, 1), "Links 1".to_string());
    let l2 = (launcher(site, &w.url, 2), "Links 2".to_string());
    let mut steps = vec![run(&["open", &l1.0], page(l1.0.clone(), &l1.1))];
    steps.extend(arrival(&w.lands, &w.url, &l1));
    steps.extend(w.extra);
    steps.push(run(&["open", &l2.0], page(l2.0.clone(), &l2.1)));
    let click = w.click_lands.as_ref().unwrap_or(&w.lands);
    steps.extend(click_arrival(click, &w.url, &l2, !w.load_never_fires));
    let (back_url, back_title) = match (&w.back, click) {
        (Some(back), _) => back.clone(),
        // Nothing replaced launcher 2: back goes to the entry before it, where `open` ended.
        (None, Lands::Stays) => match &w.lands {
            Lands::Page(url, Some(title)) => (url.clone(), title.to_string()),
            _ => l1,
        },
        (None, _) => l2,
    };
    steps.push(cmd("back", prints(back_url.clone())));
    if !w.back_moves_on {
        steps.push(cmd("get url", prints(back_url)));
        steps.push(cmd("get title", prints(back_title)));
    }
    Pattern {
        id: w.id,
        isolate: w.isolate,
        steps,
    }
}

fn scripted(id: &str, steps: Vec<Step>) -> Pattern {
    Pattern {
        id: id.to_string(),
        isolate: false,
        steps,
    }
}

/// Places the corpus needs beyond the fixture site.
struct World {
    /// A loopback port nothing listens on.
    closed_port: u16,
    /// `file://…/nav-file.html` ("File Page").
    file_url: String,
    _dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
        let closed_port = listener.local_addr().expect("local addr").port();
        drop(listener);
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("nav-file.html");
        std::fs::write(
            &file,
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>File Page</title></head><body><h1>File Page</h1></body></html>\n",
        )
        .expect("write the file page");
        World {
            closed_port,
            file_url: format!("file://{}", file.display()),
            _dir: dir,
        }
    }
}

/// Every pattern, as this binary must answer it.
fn corpus(site: &FixtureServer, world: &World, kind: Kind) -> Vec<Pattern> {
    let s = |path: &str| site.url(path);
    let landed = |via: &str| s(&format!("/nav/landed?via={via}"));
    let landed_page = |via: &str| Lands::Page(landed(via), Some("Landed"));
    let tag = kind.tag();
    let mut all = Vec::new();

    // Server redirects.
    for code in [301, 302, 303, 307, 308] {
        all.push(Walk::new(
            format!("redirect-{code}"),
            s(&format!("/nav/redirect?code={code}")),
            landed_page(&code.to_string()),
        ));
    }
    all.push(
        Walk::new(
            "redirect-chain",
            s("/nav/chain?hops=4"),
            landed_page("chain-301-302-303-307"),
        )
        .then(cmd(
            "get text #search",
            prints("?via=chain-301-302-303-307"),
        )),
    );
    all.push(
        Walk::new(
            "redirect-cross-origin",
            s("/nav/cross"),
            Lands::Page(
                site.url_on_host("localhost", "/nav/landed?via=cross"),
                Some("Landed"),
            ),
        )
        .then(cmd(
            "get text #host",
            prints(format!("localhost:{}", site.port())),
        )),
    );
    all.push(Walk::new(
        "redirect-to-404",
        s("/nav/chain?hops=2&end=/nav/missing"),
        Lands::Page(s("/nav/missing?via=chain-301-302"), Some("Missing Page")),
    ));
    all.push(
        Walk::new(
            "redirect-sets-cookie",
            s("/nav/set-cookie"),
            landed_page("cookie"),
        )
        .isolate()
        .then(cmd("get text #cookie", prints("hop"))),
    );

    // Client redirects: during the load the landing page is what `open` prints; a timer fires
    // after the load, so `open` may print either page, and the tab then lands.
    for how in ["replace", "assign", "href"] {
        for when in ["head", "body", "dcl", "load", "timer"] {
            let id = format!("client-{how}-{when}");
            let url = s(&format!("/nav/client?how={how}&when={when}"));
            let via = format!("{how}-{when}");
            let lands = if when == "timer" {
                Lands::Later(url.clone(), landed(&via))
            } else {
                landed_page(&via)
            };
            let mut w = Walk::new(id, url.clone(), lands);
            if how != "replace" && when == "timer" {
                // A move during the load replaces the client page's entry (back goes to the
                // launcher); assign and href after it push one: back is the client page, whose
                // timer (unless it comes back from the back/forward cache) moves it on again.
                w = w.back_to_moving(url);
            }
            all.push(w);
        }
    }
    all.push(Walk::new(
        "meta-refresh-0",
        s("/nav/meta?delay=0"),
        landed_page("meta-0"),
    ));
    all.push(Walk::new(
        "meta-refresh-1",
        s("/nav/meta?delay=1"),
        Lands::Later(s("/nav/meta?delay=1"), landed("meta-1")),
    ));
    all.push(Walk::new(
        "form-post-auto",
        s("/nav/form?auto=1"),
        landed_page("form-auto"),
    ));

    // History API.
    all.push(
        Walk::new(
            "history-push-load",
            s("/nav/history?op=push&when=load"),
            Lands::Page(s("/nav/pushed?op=push"), Some("After pushState")),
        )
        .back_to(s("/nav/history?op=push&when=load"), "After pushState"),
    );
    all.push(Walk::new(
        "history-replace-load",
        s("/nav/history?op=replace&when=load"),
        Lands::Page(s("/nav/pushed?op=replace"), Some("After replaceState")),
    ));

    // Fragments, empty answers, content, URL schemes, errors, slow pages.
    all.push(
        Walk::new(
            "fragment-cross-document",
            s("/nav/anchors.html#part2"),
            Lands::Page(s("/nav/anchors.html#part2"), Some("Anchors")),
        )
        .then(cmd("get text #hash", prints("#part2"))),
    );
    all.push(Walk::new(
        "status-204",
        s("/nav/status?code=204"),
        Lands::Stays,
    ));
    all.push(Walk::new(
        "status-205",
        s("/nav/status?code=205"),
        Lands::Stays,
    ));
    all.push(Walk::new("download", s("/nav/download"), Lands::Stays));
    all.push(Walk::new(
        "pdf",
        s("/nav/doc.pdf"),
        match kind {
            // The shell has no PDF viewer: the PDF is a download.
            Kind::Shell => Lands::Stays,
            Kind::Full => Lands::Page(s("/nav/doc.pdf"), None),
        },
    ));
    all.push(
        Walk::new(
            "json",
            s("/nav/data.json"),
            Lands::Page(s("/nav/data.json"), None),
        )
        .then(cmd(
            "get text body",
            prints("{\"corpus\":\"nav\",\"ok\":true}"),
        )),
    );
    all.push(Walk::new(
        "text",
        s("/nav/note.txt"),
        Lands::Page(s("/nav/note.txt"), None),
    ));
    let data = "data:text/html,%3Ctitle%3EData%20Page%3C/title%3E%3Ch1%3EData%20Page%3C/h1%3E";
    all.push(
        // A page may not send the top frame to a data: URL: the click stays.
        Walk::new(
            "data-url",
            data,
            Lands::Page(data.into(), Some("Data Page")),
        )
        .click_lands(Lands::Stays),
    );
    all.push(Walk::new(
        "about-blank",
        "about:blank",
        Lands::Page("about:blank".into(), Some("")),
    ));
    all.push(
        // Nor to a file: URL.
        Walk::new(
            "file-url",
            world.file_url.clone(),
            Lands::Page(world.file_url.clone(), Some("File Page")),
        )
        .click_lands(Lands::Stays),
    );
    all.push(Walk::new(
        "connection-refused",
        format!("http://127.0.0.1:{}/", world.closed_port),
        Lands::Error("✗ Navigation failed: net::ERR_CONNECTION_REFUSED"),
    ));
    all.push(Walk::new(
        "unknown-host",
        "http://nonexistent.invalid/",
        Lands::Error("✗ Navigation failed: net::ERR_NAME_NOT_RESOLVED"),
    ));
    all.push(Walk::new(
        "not-found",
        s("/nav/missing"),
        Lands::Page(s("/nav/missing"), Some("Missing Page")),
    ));
    all.push(Walk::new(
        "server-error",
        s("/nav/server-error"),
        Lands::Page(s("/nav/server-error"), Some("Server Error Page")),
    ));
    all.push(Walk::new(
        "slow-first-byte",
        s("/slow?ms=1500"),
        Lands::Page(s("/slow?ms=1500"), Some("Slow")),
    ));
    // Upstream waits for a load event that never comes (25 s, then a timeout); the tab shows the
    // page from DOMContentLoaded on.
    all.push(
        Walk::new(
            "stuck-image",
            s("/nav/stuck?res=img"),
            Lands::Page(s("/nav/stuck?res=img"), Some("Stuck img")),
        )
        .load_never_fires()
        .then(cmd("get text #dcl", prints("DOMContentLoaded"))),
    );
    all.push(Walk::new(
        "interrupt-page-redirect",
        s("/nav/client?how=replace&when=timer&ms=100&hold=1&to=%2Fnav%2Flanded%3Fvia%3Dloading-redirect"),
        landed_page("loading-redirect"),
    ));
    all.push(Walk::new(
        "iframes-navigate",
        s("/nav/iframes"),
        Lands::Page(s("/nav/iframes"), Some("Iframe Navigations")),
    ));
    let mut patterns: Vec<Pattern> = all.into_iter().map(|w| walk(site, w)).collect();

    // Scripted sequences.
    patterns.push(scripted(
        "form-post-button",
        vec![
            run(
                &["open", &s("/nav/form")],
                page(s("/nav/form"), "Form button"),
            ),
            cmd("click #send", Want::Succeeds),
            cmd("wait --load load", Want::Succeeds),
            cmd("get url", prints(landed("form-button"))),
            cmd("get title", prints("Landed")),
            cmd("back", prints(s("/nav/form"))),
            cmd("get title", prints("Form button")),
        ],
    ));
    for op in ["push", "replace"] {
        let at = s(&format!("/nav/history?op={op}&when=button"));
        let pushed = s(&format!("/nav/pushed?op={op}"));
        let after = format!("After {op}State");
        let (back_url, back_title) = if op == "push" {
            // The entry before the push, in the same document (its title stays).
            (at.clone(), after.clone())
        } else {
            // The entry was replaced: back leaves the document.
            (s("/page1.html"), "Page One".to_string())
        };
        let mut steps = vec![
            run(
                &["open", &s("/page1.html")],
                page(s("/page1.html"), "Page One"),
            ),
            run(
                &["open", &at],
                page(at.clone(), &format!("History {op} button")),
            ),
            cmd("click #change", Want::Succeeds),
            cmd("get url", prints(pushed)),
            cmd("get title", prints(after)),
            cmd("back", prints(back_url.clone())),
            cmd("get url", prints(back_url)),
            cmd("get title", prints(back_title)),
        ];
        if op == "push" {
            steps.push(cmd("get text #popped", prints("popstate null")));
        }
        patterns.push(scripted(&format!("history-{op}-button"), steps));
    }
    patterns.push(Pattern {
        id: "window-open-onload".into(),
        isolate: true,
        steps: vec![
            run(
                &["open", &s("/nav/window-open")],
                page(s("/nav/window-open"), "Window Open"),
            ),
            // The popup is a tab of the session (upstream also makes it the active tab).
            Step::Eventually(
                vec!["tab".into(), "list".into()],
                Want::Contains(s("/page2.html")),
            ),
        ],
    });
    let anchors = |part: &str| s(&format!("/nav/anchors.html#{part}"));
    patterns.push(scripted(
        "fragment-same-document",
        vec![
            run(
                &["open", &anchors("part2")],
                page(anchors("part2"), "Anchors"),
            ),
            run(
                &["open", &anchors("part3")],
                page(anchors("part3"), "Anchors"),
            ),
            cmd("get text #hash", prints("#part3")),
            cmd("click #to-part1", Want::Succeeds),
            cmd("get url", prints(anchors("part1"))),
            cmd("back", prints(anchors("part3"))),
            cmd("get text #hash", prints("#part3")),
        ],
    ));
    let never_second = format!("/never?side={tag}&n=second-open");
    patterns.push(scripted(
        "interrupt-second-open",
        vec![
            run(
                &["open", &s("/page1.html")],
                page(s("/page1.html"), "Page One"),
            ),
            Step::Spawn(vec!["open".into(), s(&never_second)], never_second.clone()),
            run(
                &["open", &landed("second-open")],
                page(landed("second-open"), "Landed"),
            ),
            // The page the first open asked for never came: it fails (and does not hang).
            Step::Join(Want::Fails("")),
            cmd("get url", prints(landed("second-open"))),
            cmd("get title", prints("Landed")),
        ],
    ));
    let never_back = format!("/never?side={tag}&n=back");
    patterns.push(scripted(
        "interrupt-back",
        vec![
            run(
                &["open", &s("/page1.html")],
                page(s("/page1.html"), "Page One"),
            ),
            run(
                &["open", &s("/page2.html")],
                page(s("/page2.html"), "Page Two"),
            ),
            Step::Spawn(vec!["open".into(), s(&never_back)], never_back.clone()),
            cmd("back", prints(s("/page1.html"))),
            Step::Join(Want::Fails("")),
            cmd("get url", prints(s("/page1.html"))),
            cmd("get title", prints("Page One")),
        ],
    ));
    let slow_sub = s(&format!("/nav/slow-sub?ms=2500&tag={tag}-reload"));
    let slow_image = format!("/slow?ms=2500&from={tag}-reload");
    // A head stylesheet that never loads holds back the inline script after it, so the parser
    // never reaches the end: no DOMContentLoaded, no first paint, nothing usable. Both binaries
    // time out (upstream after its 25 s); the tab has committed the page and knows its title.
    patterns.push(scripted(
        "stuck-stylesheet",
        vec![
            run(
                &["open", &s("/nav/stuck?res=css")],
                Want::Fails("timed out"),
            ),
            cmd("get url", prints(s("/nav/stuck?res=css"))),
            cmd("get title", prints("Stuck css")),
        ],
    ));
    patterns.push(scripted(
        "reload-during-load",
        vec![
            run(
                &["open", &s("/page1.html")],
                page(s("/page1.html"), "Page One"),
            ),
            Step::Spawn(vec!["open".into(), slow_sub.clone()], slow_image),
            cmd("reload", prints(slow_sub.clone())),
            // The page answered and only its image is still loading: the reload waits for the
            // open, which prints the page (a page that never answered is interrupted instead).
            Step::Join(page(slow_sub.clone(), "Slow subresource")),
            cmd("get url", prints(slow_sub)),
            cmd("get title", prints("Slow subresource")),
        ],
    ));
    patterns.push(Pattern {
        id: "beforeunload".into(),
        isolate: true,
        steps: vec![
            run(
                &["open", &s("/nav/beforeunload")],
                page(s("/nav/beforeunload"), "Before Unload"),
            ),
            cmd("click #arm", Want::Succeeds),
            // `open` leaves the page whatever its handler asks, as upstream.
            run(
                &["open", &s("/page2.html")],
                page(s("/page2.html"), "Page Two"),
            ),
            cmd("get url", prints(s("/page2.html"))),
        ],
    });
    patterns.push(scripted(
        "back-forward-server-redirect",
        vec![
            run(
                &["open", &s("/page1.html")],
                page(s("/page1.html"), "Page One"),
            ),
            run(
                &["open", &s("/nav/redirect?code=302")],
                page(landed("302"), "Landed"),
            ),
            cmd("back", prints(s("/page1.html"))),
            cmd("forward", prints(landed("302"))),
            cmd("get title", prints("Landed")),
        ],
    ));
    patterns.push(scripted(
        "back-forward-client-redirect",
        vec![
            run(
                &["open", &s("/page1.html")],
                page(s("/page1.html"), "Page One"),
            ),
            run(
                &["open", &s("/nav/client?how=replace&when=head")],
                page(landed("replace-head"), "Landed"),
            ),
            cmd("back", prints(s("/page1.html"))),
            cmd("forward", prints(landed("replace-head"))),
            cmd("get title", prints("Landed")),
        ],
    ));
    patterns.push(scripted(
        "back-forward-cache",
        vec![
            run(
                &["open", &s("/nav/bfcache")],
                page(s("/nav/bfcache"), "BFCache"),
            ),
            cmd("click #to-page2", Want::Succeeds),
            cmd("wait --load load", Want::Succeeds),
            cmd("get title", prints("Page Two")),
            cmd("back", prints(s("/nav/bfcache"))),
            cmd("get title", prints("BFCache")),
            // Full Chrome restores the page from the back/forward cache (a second pageshow);
            // the shell loads it again (upstream sees the same).
            cmd(
                "get text #shown",
                prints(match kind {
                    Kind::Shell => "pageshow 1 persisted=false",
                    Kind::Full => "pageshow 2 persisted=true",
                }),
            ),
            cmd("forward", prints(s("/page2.html"))),
            cmd("get title", prints("Page Two")),
        ],
    ));
    patterns.push(Pattern {
        id: "basic-auth".into(),
        isolate: true,
        steps: vec![
            run(
                &["open", &s("/basic-auth")],
                match kind {
                    Kind::Shell => page(s("/basic-auth"), "401 Unauthorized"),
                    // Full Chrome cancels a challenge nobody answers (upstream fails the same).
                    Kind::Full => {
                        Want::Fails("✗ Navigation failed: net::ERR_INVALID_AUTH_CREDENTIALS")
                    }
                },
            ),
            cmd("set credentials alice secret", Want::Succeeds),
            run(
                &["open", &s("/basic-auth")],
                page(s("/basic-auth"), "Authorized"),
            ),
            cmd("get text #who", prints("alice")),
        ],
    });
    patterns
}

/// Runs `agent-browser <args>`; a command still running after [`HANG_LIMIT`] is killed (by its
/// pid) and reported as hung (code -1).
fn run_bounded(ab: &Cli, args: &[String]) -> Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = finish_within(ab.spawn(&args));
    ab.remember();
    out
}

fn finish_within(child: Child) -> Output {
    let pid = child.id() as i32;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(finish(child));
    });
    match rx.recv_timeout(HANG_LIMIT) {
        Ok(out) => out,
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            let mut out = rx.recv().unwrap_or(Output {
                code: -1,
                stdout: String::new(),
                stderr: String::new(),
                took: HANG_LIMIT,
            });
            out.code = -1;
            out.stderr
                .push_str(&format!("\n(no answer within {HANG_LIMIT:?}: killed)"));
            out
        }
    }
}

/// Waits until the browser asked the fixture server for exactly `path`.
fn requested(site: &FixtureServer, path: &str) -> bool {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    runtime
        .block_on(site.wait_for_request(|r| r.path == path, REQUEST_LIMIT))
        .is_some()
}

/// Runs one pattern; the first step that answers wrong fails it.
fn run_pattern(ab: &Cli, site: &FixtureServer, pattern: &Pattern) -> Result<(), String> {
    let mut spawned: Option<Child> = None;
    let result = (|| {
        for step in &pattern.steps {
            match step {
                Step::Run(args, want) => {
                    let out = run_bounded(ab, args);
                    if !want.accepts(&out) {
                        return Err(mismatch(&args.join(" "), want, &out));
                    }
                }
                Step::Spawn(args, until) => {
                    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
                    spawned = Some(ab.spawn(&argv));
                    if !requested(site, until) {
                        return Err(format!(
                            "{}: the browser never asked for {until}",
                            args.join(" ")
                        ));
                    }
                }
                Step::Eventually(args, want) => {
                    let deadline = std::time::Instant::now() + Duration::from_secs(5);
                    loop {
                        let out = run_bounded(ab, args);
                        if want.accepts(&out) {
                            break;
                        }
                        if std::time::Instant::now() >= deadline {
                            return Err(mismatch(&args.join(" "), want, &out));
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
                Step::Join(want) => {
                    let child = spawned.take().ok_or("nothing was spawned")?;
                    let out = finish_within(child);
                    ab.remember();
                    if !want.accepts(&out) {
                        return Err(mismatch("(the spawned command)", want, &out));
                    }
                }
            }
        }
        Ok(())
    })();
    if let Some(child) = spawned.take() {
        let _ = finish_within(child);
    }
    result
}

fn mismatch(command: &str, want: &Want, out: &Output) -> String {
    format!(
        "`{command}` wanted {want:?}, got exit {} stdout {:?} stderr {:?}",
        out.code,
        out.out(),
        out.stderr.trim_end()
    )
}

fn session(kind: Kind) -> Cli {
    Cli::new()
        .session("nav")
        .env(
            "AGENT_BROWSER_EXECUTABLE_PATH",
            match kind {
                Kind::Shell => SHELL,
                Kind::Full => FULL,
            },
        )
        .env("AGENT_BROWSER_DEFAULT_TIMEOUT", COMMAND_TIMEOUT_MS)
}

fn corpus_holds_on(kind: Kind) {
    let site = common::site();
    let world = World::new();
    let ab = session(kind);
    let mut failures = Vec::new();
    for pattern in corpus(&site, &world, kind) {
        let outcome = run_pattern(&ab, &site, &pattern);
        if let Err(why) = &outcome {
            failures.push(format!("{}: {why}", pattern.id));
        }
        if outcome.is_err() || pattern.isolate {
            // The next pattern starts from a fresh browser: no hung navigation, cookie,
            // credentials or popup left behind.
            let _ = run_bounded(&ab, &["close".to_string()]);
        }
    }
    ab.run(&["close"]).success();
    assert!(ab.daemon_pid().is_none(), "the daemon outlived close");
    assert!(
        failures.is_empty(),
        "{} of the navigation corpus's patterns failed on the {} ({}):\n{}",
        failures.len(),
        kind.tag(),
        match kind {
            Kind::Shell => SHELL,
            Kind::Full => FULL,
        },
        failures.join("\n")
    );
}

#[test]
fn the_navigation_corpus_holds_on_the_headless_shell() {
    corpus_holds_on(Kind::Shell);
}

#[test]
fn the_navigation_corpus_holds_on_full_chromium() {
    corpus_holds_on(Kind::Full);
}
