//! Real web applications, installed from the package registries and served on loopback, driven
//! through `agent-browser` the way an agent drives them (`open`, `snapshot -i`, refs, `fill`,
//! `click`, `press`, `wait`, `get`), on both Chrome binaries abx runs (the headless shell, abx's
//! default, and full Chromium):
//!
//! - the Django admin: the sign-in redirect, a login POST with its CSRF token, adding and
//!   changing an object of a model registered in the admin, the logout form;
//! - JupyterLab: a single-page app over websockets: a notebook, a cell run on a real Python
//!   kernel, the kernel shut down;
//! - Debian's Python documentation: a large static site whose search page is built by
//!   JavaScript, long reference pages, next links.
//!
//! `scripts/ensure-real-apps.sh` installs them (CI runs it). Without them every test here fails,
//! naming that script; none is skipped.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use abx_tests::cli::Cli;

#[path = "real_apps/server.rs"]
mod server;

use server::{AppServer, find_ref, free_port, run_setup};

const FULL_CHROME: &str = "/usr/bin/chromium";

/// A CLI whose session runs the headless shell (abx's default) or the given executable, checked
/// against what the session reports once it runs.
fn session(executable: Option<&str>) -> Cli {
    let cli = Cli::new();
    match executable {
        Some(path) => cli.env("AGENT_BROWSER_EXECUTABLE_PATH", path),
        None => cli.without("AGENT_BROWSER_EXECUTABLE_PATH"),
    }
}

/// Asserts that the running session uses the binary the test asked for.
fn assert_binary(ab: &Cli, executable: Option<&str>) {
    let json = ab.run(&["--json", "get", "url"]).success().json();
    let browser = &json["data"]["lifecycle"]["effectiveLaunch"]["browser"];
    match executable {
        Some(path) => assert_eq!(browser["executablePath"], path, "{browser}"),
        None => assert_eq!(browser["kind"], "headless-shell", "{browser}"),
    }
}

fn out(ab: &Cli, args: &[&str]) -> String {
    ab.run(args).success().out().to_string()
}

fn snapshot(ab: &Cli) -> String {
    out(ab, &["snapshot", "-i"])
}

// ---------------------------------------------------------------------------------------------
// The Django admin

/// A throw-away Django project in a temp dir: sqlite, a superuser, an app `shelf` with a model
/// `Book` registered in the admin; served by `runserver` on a free port.
struct Django {
    server: AppServer,
    _dir: tempfile::TempDir,
}

const DJANGO_USER: &str = "admin";
const DJANGO_PASSWORD: &str = "correct-horse-battery";

impl Django {
    fn start() -> Django {
        let venv = server::venv(&["django"]);
        let python = venv.join("bin/python");
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        std::fs::create_dir(&root).expect("project dir");
        let manage = |args: &[&str]| {
            let mut command = Command::new(&python);
            command
                .arg("manage.py")
                .args(args)
                .current_dir(&root)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", dir.path())
                .env("PYTHONDONTWRITEBYTECODE", "1");
            command
        };
        run_setup(
            Command::new(&python)
                .args(["-m", "django", "startproject", "site_"])
                .arg(&root)
                .env("PYTHONDONTWRITEBYTECODE", "1"),
        );
        let app = root.join("shelf");
        std::fs::create_dir_all(app.join("migrations")).expect("app dir");
        for (file, text) in [
            ("__init__.py", ""),
            ("migrations/__init__.py", ""),
            (
                "models.py",
                "from django.db import models\n\n\n\
                 class Book(models.Model):\n    \
                     title = models.CharField(max_length=200)\n    \
                     author = models.CharField(max_length=200)\n\n    \
                     def __str__(self):\n        return self.title\n",
            ),
            (
                "admin.py",
                "from django.contrib import admin\n\nfrom .models import Book\n\n\
                 admin.site.register(Book)\n",
            ),
        ] {
            std::fs::write(app.join(file), text).expect("app file");
        }
        let settings = root.join("site_/settings.py");
        let mut text = std::fs::read_to_string(&settings).expect("settings.py");
        text.push_str("\nINSTALLED_APPS += [\"shelf\"]\n");
        std::fs::write(&settings, text).expect("settings.py");

        run_setup(&mut manage(&["makemigrations", "shelf", "-v", "0"]));
        run_setup(&mut manage(&["migrate", "-v", "0"]));
        run_setup(
            manage(&["createsuperuser", "--noinput", "-v", "0"])
                .env("DJANGO_SUPERUSER_USERNAME", DJANGO_USER)
                .env("DJANGO_SUPERUSER_PASSWORD", DJANGO_PASSWORD)
                .env("DJANGO_SUPERUSER_EMAIL", "admin@example.com"),
        );

        let port = free_port();
        let mut command = manage(&["runserver", &format!("127.0.0.1:{port}"), "--noreload"]);
        command.env("PYTHONUNBUFFERED", "1");
        let mut server = AppServer::start("django runserver", command, port);
        server.wait_ready("/admin/login/", Duration::from_secs(60));
        Django { server, _dir: dir }
    }
}

#[test]
fn django_admin_login_add_change_and_logout_on_the_headless_shell() {
    django_admin(None);
}

#[test]
fn django_admin_login_add_change_and_logout_on_full_chrome() {
    django_admin(Some(FULL_CHROME));
}

fn django_admin(executable: Option<&str>) {
    let django = Django::start();
    let url = |path: &str| django.server.url(path);
    let ab = session(executable);

    // Signed out, the admin redirects to its login page.
    let opened = ab.run(&["open", &url("/admin/")]).success();
    assert_binary(&ab, executable);
    let login_url = url("/admin/login/?next=/admin/");
    assert_eq!(
        opened.out(),
        format!("✓ Log in | Django site admin\n  {login_url}")
    );
    assert_eq!(out(&ab, &["get", "url"]), login_url);
    assert_eq!(out(&ab, &["get", "title"]), "Log in | Django site admin");

    // Log in through the form (its CSRF token goes with the POST; the 302 lands on the index).
    let snap = snapshot(&ab);
    ab.run(&[
        "fill",
        &find_ref(&snap, None, "textbox \"Username:\""),
        DJANGO_USER,
    ])
    .success();
    ab.run(&[
        "fill",
        &find_ref(&snap, None, "textbox \"Password:\""),
        DJANGO_PASSWORD,
    ])
    .success();
    ab.run(&["click", &find_ref(&snap, None, "button \"Log in\"")])
        .success();
    // (A glob ending in `/admin/` would already match the login URL's `?next=/admin/`.)
    ab.run(&["wait", "--fn", "location.pathname === '/admin/'"])
        .success();
    assert_eq!(out(&ab, &["get", "url"]), url("/admin/"));
    assert_eq!(
        out(&ab, &["get", "title"]),
        "Site administration | Django site admin"
    );
    let snap = snapshot(&ab);
    assert!(
        snap.contains("heading \"Site administration\"") && snap.contains("button \"LOG OUT\""),
        "the admin index, signed in:\n{snap}"
    );

    // The model's change list, from the index.
    ab.run(&["click", &find_ref(&snap, None, "link \"Books\"")])
        .success();
    ab.run(&["wait", "--url", "**/admin/shelf/book/"]).success();
    assert_eq!(
        out(&ab, &["get", "title"]),
        "Select book to change | Django site admin"
    );
    assert!(
        out(&ab, &["get", "text", "#content"]).contains("0 books"),
        "an empty change list"
    );

    // Add a book.
    let snap = snapshot(&ab);
    ab.run(&["click", &find_ref(&snap, None, "link \"Add book\"")])
        .success();
    ab.run(&["wait", "--url", "**/admin/shelf/book/add/"])
        .success();
    assert_eq!(out(&ab, &["get", "title"]), "Add book | Django site admin");
    let snap = snapshot(&ab);
    ab.run(&[
        "fill",
        &find_ref(&snap, None, "textbox \"Title:\""),
        "The Rust Programming Language",
    ])
    .success();
    ab.run(&[
        "fill",
        &find_ref(&snap, None, "textbox \"Author:\""),
        "Steve Klabnik",
    ])
    .success();
    ab.run(&["click", &find_ref(&snap, None, "button \"Save\"")])
        .success();
    ab.run(&["wait", "--url", "**/admin/shelf/book/"]).success();
    assert_eq!(out(&ab, &["get", "url"]), url("/admin/shelf/book/"));
    assert_eq!(
        out(&ab, &["get", "text", ".messagelist"]),
        "The book “The Rust Programming Language” was added successfully."
    );
    assert!(
        out(&ab, &["get", "text", "#content"]).contains("1 book"),
        "the change list counts the new book"
    );

    // Change it.
    let snap = snapshot(&ab);
    ab.run(&[
        "click",
        &find_ref(&snap, None, "link \"The Rust Programming Language\""),
    ])
    .success();
    ab.run(&["wait", "--url", "**/admin/shelf/book/*/change/"])
        .success();
    let edit_url = out(&ab, &["get", "url"]);
    assert_eq!(
        out(&ab, &["get", "title"]),
        "The Rust Programming Language | Change book | Django site admin"
    );
    let snap = snapshot(&ab);
    assert!(
        snap.contains("textbox \"Author:\" [required, ref=") && snap.contains("]: Steve Klabnik"),
        "the edit form shows the saved author:\n{snap}"
    );
    ab.run(&[
        "fill",
        &find_ref(&snap, None, "textbox \"Author:\""),
        "Steve Klabnik and Carol Nichols",
    ])
    .success();
    ab.run(&["click", &find_ref(&snap, None, "button \"Save\"")])
        .success();
    ab.run(&["wait", "--url", "**/admin/shelf/book/"]).success();
    assert_eq!(
        out(&ab, &["get", "text", ".messagelist"]),
        "The book “The Rust Programming Language” was changed successfully."
    );
    ab.run(&["open", &edit_url]).success();
    assert_eq!(
        out(&ab, &["get", "value", "#id_author"]),
        "Steve Klabnik and Carol Nichols",
        "the change was saved"
    );

    // Log out: a POST form in the header since Django 5.
    let snap = snapshot(&ab);
    ab.run(&["click", &find_ref(&snap, None, "button \"Log out\"")])
        .success();
    ab.run(&["wait", "--url", "**/admin/logout/"]).success();
    assert_eq!(
        out(&ab, &["get", "title"]),
        "Logged out | Django site admin"
    );
    assert!(
        out(&ab, &["get", "text", "#content"])
            .contains("Thanks for spending some quality time with the web site today."),
        "the logged-out page"
    );
    let snap = snapshot(&ab);
    assert!(
        snap.contains("link \"Log in again\"") && !snap.contains("button \"LOG OUT\""),
        "signed out:\n{snap}"
    );
    // The session is over: the admin asks for a login again.
    ab.run(&["open", &url("/admin/")]).success();
    assert_eq!(out(&ab, &["get", "url"]), login_url);

    assert_eq!(out(&ab, &["close"]), "✓ Browser closed");
    django.server.stop();
}

// ---------------------------------------------------------------------------------------------
// JupyterLab

/// JupyterLab on a free port with no token or password, every Jupyter dir in a temp dir, and
/// nothing that reaches the network (no news, no update check, no PyPI extension manager).
struct Jupyter {
    server: AppServer,
    _dir: tempfile::TempDir,
}

impl Jupyter {
    fn start() -> Jupyter {
        let venv = server::venv(&["jupyterlab", "ipykernel"]);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = |name: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir_all(&path).expect("jupyter dir");
            path
        };
        let (root, config, data, runtime, home) = (
            path("root"),
            path("config"),
            path("data"),
            path("runtime"),
            path("home"),
        );
        // The news prompt is a plugin of its own: disabled, it neither asks nor fetches.
        std::fs::create_dir_all(config.join("labconfig")).expect("labconfig");
        std::fs::write(
            config.join("labconfig/page_config.json"),
            r#"{"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": true}}"#,
        )
        .expect("page_config.json");

        let port = free_port();
        let mut command = Command::new(venv.join("bin/jupyter"));
        command
            .arg("lab")
            .arg("--no-browser")
            .arg("--ServerApp.ip=127.0.0.1")
            .arg(format!("--ServerApp.port={port}"))
            .arg("--ServerApp.port_retries=0")
            .arg("--ServerApp.allow_root=True")
            .arg("--IdentityProvider.token=")
            .arg("--PasswordIdentityProvider.hashed_password=")
            .arg(format!("--ServerApp.root_dir={}", root.display()))
            .arg("--LabApp.news_url=None")
            .arg("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
            .arg("--LabApp.extension_manager=readonly")
            .current_dir(&root)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("JUPYTER_CONFIG_DIR", &config)
            .env("JUPYTER_DATA_DIR", &data)
            .env("JUPYTER_RUNTIME_DIR", &runtime)
            .env("IPYTHONDIR", home.join(".ipython"))
            .env("PYTHONDONTWRITEBYTECODE", "1");
        let mut server = AppServer::start("jupyter lab", command, port);
        server.wait_ready("/api/status", Duration::from_secs(90));
        Jupyter { server, _dir: dir }
    }

    /// The server's kernel processes (`ipykernel_launcher`), from /proc.
    fn kernels(&self) -> Vec<i32> {
        self.server
            .descendants()
            .into_iter()
            .filter(|pid| abx_tests::cmdline(*pid).contains("ipykernel_launcher"))
            .collect()
    }
}

#[test]
fn jupyterlab_notebook_runs_a_cell_and_shuts_its_kernel_down_on_the_headless_shell() {
    jupyterlab(None);
}

#[test]
fn jupyterlab_notebook_runs_a_cell_and_shuts_its_kernel_down_on_full_chrome() {
    jupyterlab(Some(FULL_CHROME));
}

fn jupyterlab(executable: Option<&str>) {
    let jupyter = Jupyter::start();
    let ab = session(executable);
    // Generous but finite: the first load of the app on 2 cores, a kernel's start.
    let patient = ["--timeout", "60000"];

    ab.run(&["open", &jupyter.server.url("/lab")]).success();
    assert_binary(&ab, executable);
    ab.run(&[&["wait", "--text", "Python 3 (ipykernel)"][..], &patient].concat())
        .success();
    assert_eq!(out(&ab, &["get", "title"]), "JupyterLab");

    // A notebook from the launcher's Notebook section (the Console section has the same button).
    let snap = snapshot(&ab);
    let notebook = find_ref(
        &snap,
        Some("heading \"Notebook\""),
        "button \"Python 3 (ipykernel)",
    );
    ab.run(&["click", &notebook]).success();
    ab.run(
        &[
            &["wait", "--url", "**/lab/tree/Untitled.ipynb"][..],
            &patient,
        ]
        .concat(),
    )
    .success();
    ab.run(
        &[
            &["wait", "--text", "Python 3 (ipykernel) | Idle"][..],
            &patient,
        ]
        .concat(),
    )
    .success();
    assert_eq!(out(&ab, &["get", "title"]), "Untitled.ipynb - JupyterLab");
    assert_eq!(
        jupyter.kernels().len(),
        1,
        "one kernel runs for the notebook"
    );

    // Type into the first cell, run it with Shift+Enter, read its output.
    let snap = snapshot(&ab);
    let cell = find_ref(&snap, Some("\"Code Cell Content\""), "textbox");
    ab.run(&["fill", &cell, "print(6*7)"]).success();
    assert_eq!(
        out(&ab, &["get", "text", ".jp-Cell .cm-content"]),
        "print(6*7)"
    );
    ab.run(&["press", "Shift+Enter"]).success();
    ab.run(&[&["wait", "--text", "42"][..], &patient].concat())
        .success();
    assert_eq!(out(&ab, &["get", "text", ".jp-OutputArea-output"]), "42");
    // The prompt's number comes with the kernel's execute reply, which can follow the output.
    ab.run(
        &[
            &[
                "wait",
                "--fn",
                "document.querySelector('.jp-InputArea-prompt').textContent.trim() !== '[*]:'",
            ][..],
            &patient,
        ]
        .concat(),
    )
    .success();
    assert_eq!(
        out(&ab, &["get", "text", ".jp-InputArea-prompt"]),
        "[1]:",
        "the cell ran once"
    );

    // Shut the kernel down from the Kernel menu.
    let snap = snapshot(&ab);
    ab.run(&["click", &find_ref(&snap, None, "menuitem \"Kernel\"")])
        .success();
    let snap = snapshot(&ab);
    ab.run(&[
        "click",
        &find_ref(&snap, None, "menuitem \"Shut Down Kernel\""),
    ])
    .success();
    ab.run(&[&["wait", "--text", "No Kernel"][..], &patient].concat())
        .success();

    // The running-sessions panel lists no kernel, the server has none, its process is gone.
    let snap = snapshot(&ab);
    ab.run(&[
        "click",
        &find_ref(&snap, None, "tab \"Running Terminals and Kernels\""),
    ])
    .success();
    ab.run(&["wait", "[aria-label='Kernels Section']"])
        .success();
    let snap = snapshot(&ab);
    assert!(
        snap.contains("\"0 Terminals, 0 Kernel sessions\""),
        "the status bar counts no kernel:\n{snap}"
    );
    let kernels_section = snap
        .split("region \"Kernels Section\"")
        .nth(1)
        .and_then(|rest| rest.lines().nth(1))
        .unwrap_or_default();
    assert!(
        kernels_section.contains("heading \"Language servers Section\""),
        "the Kernels section is empty:\n{snap}"
    );
    assert_eq!(jupyter.server.get("/api/kernels"), (200, "[]".to_string()));
    assert!(
        abx_tests::wait_gone_blocking(&jupyter.kernels(), Duration::from_secs(30)).is_some(),
        "the kernel process is still running after its shutdown: {:?}",
        jupyter.kernels()
    );

    assert_eq!(out(&ab, &["close"]), "✓ Browser closed");
    jupyter.server.stop();
}

// ---------------------------------------------------------------------------------------------
// The Python documentation (Debian's python3-doc), served over HTTP: its search needs it.

fn docs_server() -> AppServer {
    let root = server::python_docs();
    let venv = server::venv(&[]);
    let port = free_port();
    let mut command = Command::new(venv.join("bin/python"));
    command
        .args(["-m", "http.server", "--bind", "127.0.0.1"])
        .arg(port.to_string())
        .arg("--directory")
        .arg(&root)
        .current_dir(Path::new("/"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    let mut server = AppServer::start("python -m http.server", command, port);
    server.wait_ready("/index.html", Duration::from_secs(30));
    server
}

#[test]
fn python_docs_search_results_and_long_pages_on_the_headless_shell() {
    python_docs(None);
}

#[test]
fn python_docs_search_results_and_long_pages_on_full_chrome() {
    python_docs(Some(FULL_CHROME));
}

fn python_docs(executable: Option<&str>) {
    let docs = docs_server();
    let ab = session(executable);

    ab.run(&["open", &docs.url("/index.html")]).success();
    assert_binary(&ab, executable);
    let title = out(&ab, &["get", "title"]);
    assert!(title.ends_with(" Documentation"), "{title}");
    let version = title.trim_end_matches(" Documentation").to_string();

    // Search from the box on the index: the results page fills itself in from the search index.
    let snap = snapshot(&ab);
    ab.run(&[
        "fill",
        &find_ref(&snap, None, "textbox \"Quick search\""),
        "gather",
    ])
    .success();
    ab.run(&["press", "Enter"]).success();
    ab.run(&["wait", "--url", "**/search.html?**"]).success();
    assert_eq!(
        out(&ab, &["get", "url"]),
        docs.url("/search.html?q=gather&check_keywords=yes&area=default")
    );
    ab.run(&["wait", "--text", "Search finished"]).success();
    let summary = out(&ab, &["get", "text", ".search-summary"]);
    assert!(
        summary.starts_with("Search finished, found ")
            && summary.ends_with(" page(s) matching the search query."),
        "{summary}"
    );
    let snap = snapshot(&ab);
    assert!(
        snap.contains("heading \"Search Results\"") && snap.contains("textbox \"Search\""),
        "{snap}"
    );

    // A result.
    ab.run(&["click", &find_ref(&snap, None, "link \"asyncio.gather\"")])
        .success();
    ab.run(&["wait", "--url", "**/library/asyncio-task.html**"])
        .success();
    assert_eq!(
        out(&ab, &["get", "url"]),
        docs.url("/library/asyncio-task.html#asyncio.gather")
    );
    assert_eq!(
        out(&ab, &["get", "title"]),
        format!("Coroutines and Tasks — Python {version} documentation")
    );
    assert!(
        out(&ab, &["get", "text", "[id='asyncio.gather']"]).contains("gather("),
        "the result's anchor is on the page"
    );

    // A long reference page: a big snapshot, then its next link.
    ab.run(&["open", &docs.url("/library/os.html")]).success();
    assert_eq!(
        out(&ab, &["get", "title"]),
        format!("os — Miscellaneous operating system interfaces — Python {version} documentation")
    );
    let snap = snapshot(&ab);
    let refs = snap.matches("ref=e").count();
    assert!(refs > 1000, "os.html has {refs} refs:\n{snap}");
    assert!(
        snap.contains("heading \"os — Miscellaneous operating system interfaces\""),
        "{snap}"
    );
    ab.run(&["click", &find_ref(&snap, None, "link \"next\"")])
        .success();
    ab.run(&["wait", "--url", "**/library/io.html"]).success();
    assert_eq!(
        out(&ab, &["get", "title"]),
        format!("io — Core tools for working with streams — Python {version} documentation")
    );
    let snap = snapshot(&ab);
    assert!(
        snap.contains("heading \"io — Core tools for working with streams\""),
        "{snap}"
    );

    assert_eq!(out(&ab, &["close"]), "✓ Browser closed");
    docs.stop();
}

/// The sidebar's "Next topic" link on os.html wraps onto two lines; the middle of its bounding box
/// lies between the lines, on the paragraph around it. A click must land on the link itself.
#[test]
fn python_docs_sidebar_link_that_wraps_onto_two_lines_is_clicked_on_the_headless_shell() {
    wrapped_sidebar_link(None);
}

#[test]
fn python_docs_sidebar_link_that_wraps_onto_two_lines_is_clicked_on_full_chrome() {
    wrapped_sidebar_link(Some(FULL_CHROME));
}

fn wrapped_sidebar_link(executable: Option<&str>) {
    let docs = docs_server();
    let ab = session(executable);
    ab.run(&["open", &docs.url("/library/os.html")]).success();
    assert_binary(&ab, executable);
    let snap = snapshot(&ab);
    let link = find_ref(
        &snap,
        Some("heading \"Next topic\""),
        "link \"io — Core tools for working with streams\"",
    );
    let lines = out(
        &ab,
        &[
            "eval",
            "new Set([...document.querySelector('.sphinxsidebar p.topless a[href=\"io.html\"]')\
             .getClientRects()].map(r => r.top)).size",
        ],
    );
    assert_eq!(lines, "2", "the link wraps onto two lines at this width");
    let clicked = ab.run(&["click", &link]);
    assert_eq!(
        clicked.code, 0,
        "click on a link that wraps onto two lines: {clicked:#?}"
    );
    ab.run(&["wait", "--url", "**/library/io.html"]).success();
    assert_eq!(out(&ab, &["close"]), "✓ Browser closed");
    docs.stop();
}
