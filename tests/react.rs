//! `react tree|inspect|renders|suspense` against real Chromium: on the fixture page (a fake
//! renderer that reports fibers to the DevTools hook the way React does) with `--enable
//! react-devtools`, and the explanations on a page without React or without the hook.

use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

fn node<'a>(tree: &'a Value, name: &str, key: Option<&str>) -> &'a Value {
    tree["data"]["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["name"] == name && key.is_none_or(|k| n["key"] == k))
        .unwrap_or_else(|| panic!("no {name} {key:?} in {tree}"))
}

#[test]
fn react_tree_and_inspect_read_the_committed_fibers() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&[
        "--enable",
        "react-devtools",
        "open",
        &site.url("/react.html"),
    ])
    .success();
    let tree = ab.run(&["--json", "react", "tree"]).success().json();
    let names: Vec<&str> = tree["data"]["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter_map(|n| n["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Root", "App", "Counter", "Suspense", "Item", "Item", "Suspense", "Spinner", "Details"
        ],
        "{tree}"
    );
    let app = node(&tree, "App", None);
    let counter = node(&tree, "Counter", None);
    assert_eq!(counter["parent"], app["id"]);
    assert_eq!(counter["depth"], 2);
    assert_eq!(node(&tree, "Item", Some("b"))["depth"], 3);

    let text = ab.run(&["react", "tree"]).success();
    let counter_id = counter["id"].as_i64().expect("id");
    let app_id = app["id"].as_i64().expect("id");
    assert!(
        text.out()
            .lines()
            .any(|l| l == format!("2 {counter_id} {app_id} Counter")),
        "{}",
        text.out()
    );
    assert!(text.out().contains(" Item key=\"a\""), "{}", text.out());

    let inspected = ab
        .run(&["--json", "react", "inspect", &counter_id.to_string()])
        .success()
        .json();
    let data = &inspected["data"];
    assert_eq!(data["name"], "Counter");
    assert_eq!(data["parent"], "App");
    assert_eq!(
        data["props"],
        serde_json::json!({"label": "Clicks", "step": 1})
    );
    assert_eq!(data["hooks"][0]["kind"], "state");
    assert_eq!(data["hooks"][0]["value"], 0);
    // Ids stay valid across commits: the same Counter after a state update.
    ab.run(&["click", "#inc"]).success();
    let after = ab
        .run(&["react", "inspect", &counter_id.to_string()])
        .success();
    assert!(after.out().contains("hook 0 (state): 1"), "{}", after.out());

    let missing = ab.run(&["react", "inspect", "9999"]).failure();
    assert!(
        missing.stderr.contains("React component 9999 not found"),
        "{}",
        missing.stderr
    );
    ab.run(&["close"]).success();
}

#[test]
fn react_renders_counts_mounts_and_rerenders_with_their_reason() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&[
        "--enable",
        "react-devtools",
        "open",
        &site.url("/react.html"),
    ])
    .success();
    let started = ab.run(&["react", "renders", "start"]).success();
    assert_eq!(started.out(), "✓ Done");
    ab.run(&["click", "#inc"]).success();
    ab.run(&["click", "#inc"]).success();
    ab.run(&["click", "#resolve"]).success();
    let report = ab
        .run(&["--json", "react", "renders", "stop"])
        .success()
        .json();
    let data = &report["data"];
    let components = data["components"].as_array().expect("components");
    let of = |name: &str| {
        components
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in {report}"))
    };
    // Counter re-rendered twice for its state; the bailed-out siblings did not render; the
    // resolved boundary re-rendered and mounted its new Item.
    assert_eq!(of("Counter")["reRenders"], 2, "{report}");
    assert_eq!(
        of("Counter")["changeSummary"]["state.hook 0"],
        2,
        "{report}"
    );
    assert_eq!(of("Item")["mounts"], 1, "{report}");
    assert_eq!(of("Suspense")["reRenders"], 1, "{report}");
    assert!(
        components
            .iter()
            .all(|c| c["name"] != "App" && c["name"] != "Details"),
        "{report}"
    );
    assert_eq!(data["commits"], 3);
    assert_eq!(data["totalRenders"], 4, "{report}");

    let stopped = ab.run(&["react", "renders", "stop"]).failure();
    assert!(
        stopped.stderr.contains("No render recording is running"),
        "{}",
        stopped.stderr
    );
    ab.run(&["react", "renders", "start"]).success();
    let idle = ab.run(&["react", "renders", "stop"]).success();
    assert_eq!(idle.out(), "(no renders captured)");
    ab.run(&["close"]).success();
}

#[test]
fn react_suspense_tells_suspended_resolved_and_static_boundaries_apart() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&[
        "--enable",
        "react-devtools",
        "open",
        &site.url("/react.html"),
    ])
    .success();
    let before = ab.run(&["--json", "react", "suspense"]).success().json();
    let list = before["data"]["boundaries"].as_array().expect("boundaries");
    assert_eq!(list.len(), 2, "{before}");
    assert_eq!(list[0]["key"], "list");
    assert_eq!(list[0]["suspended"], false);
    assert_eq!(list[0]["dynamic"], false);
    assert_eq!(list[0]["children"], serde_json::json!(["Item", "Item"]));
    assert_eq!(list[1]["key"], "lazy");
    assert_eq!(list[1]["suspended"], true);
    assert_eq!(list[0]["parent"], "App");

    ab.run(&["click", "#resolve"]).success();
    let dynamic = ab
        .run(&["--json", "react", "suspense", "--only-dynamic"])
        .success()
        .json();
    let list = dynamic["data"]["boundaries"]
        .as_array()
        .expect("boundaries");
    assert_eq!(list.len(), 1, "{dynamic}");
    assert_eq!(list[0]["key"], "lazy");
    assert_eq!(list[0]["suspended"], false);
    assert_eq!(list[0]["children"], serde_json::json!(["Item"]));
    let text = ab.run(&["react", "suspense"]).success();
    assert!(
        text.out()
            .contains("key=\"lazy\" in App: resolved (suspended before) [Item]"),
        "{}",
        text.out()
    );
    assert!(
        text.out()
            .contains("key=\"list\" in App: static (never suspended)"),
        "{}",
        text.out()
    );
    ab.run(&["close"]).success();
}

#[test]
fn react_explains_a_missing_hook_and_a_page_without_react() {
    let site = common::site();
    let ab = Cli::new();
    // The React page, but launched without the hook: React (here, the fake) finds no hook.
    ab.run(&["open", &site.url("/react.html")]).success();
    for args in [
        &["react", "tree"][..],
        &["react", "suspense"],
        &["react", "inspect", "1"],
        &["react", "renders", "stop"],
    ] {
        let out = ab.run(args).failure();
        assert!(
            out.stderr.contains("relaunch with --enable react-devtools"),
            "{args:?}: {}",
            out.stderr
        );
    }
    // The hook, on a page without React.
    ab.run(&[
        "--enable",
        "react-devtools",
        "open",
        &site.url("/static.html"),
    ])
    .success();
    let out = ab.run(&["--json", "react", "tree"]).failure().json();
    assert!(
        out["error"]
            .as_str()
            .is_some_and(|e| e.contains("No React renderer is attached")),
        "{out}"
    );
    let bad = ab
        .run(&[
            "--enable",
            "vue-devtools",
            "open",
            &site.url("/static.html"),
        ])
        .failure();
    assert!(
        bad.stderr
            .contains("--enable vue-devtools is not supported"),
        "{}",
        bad.stderr
    );
    ab.run(&["close"]).success();
}

#[test]
fn react_renders_start_without_the_hook_answers_done_as_upstream() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    let text = ab.run(&["react", "renders", "start"]).success();
    assert_eq!(text.out(), "✓ Done");
    let json = ab
        .run(&["--json", "react", "renders", "start"])
        .success()
        .json();
    let data = &json["data"];
    assert_eq!(data["recording"], true, "{json}");
    assert!(data["identifier"].is_string(), "{json}");
    assert!(
        data["message"]
            .as_str()
            .is_some_and(|m| m.contains("react renders stop")),
        "{json}"
    );
    // The identifier is an init script's: `removeinitscript` takes it.
    let id = data["identifier"].as_str().unwrap_or_default();
    ab.run(&["removeinitscript", id]).success();
    ab.run(&["close"]).success();
}

#[test]
fn react_renders_recording_survives_a_reload() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&[
        "--enable",
        "react-devtools",
        "open",
        &site.url("/react.html"),
    ])
    .success();
    ab.run(&["react", "renders", "start"]).success();
    ab.run(&["reload"]).success();
    ab.run(&["click", "#inc"]).success();
    let report = ab
        .run(&["--json", "react", "renders", "stop"])
        .success()
        .json();
    // The new document recorded from its first commit: its mounts and the click's re-render.
    let components = report["data"]["components"].as_array().expect("components");
    let counter = components
        .iter()
        .find(|c| c["name"] == "Counter")
        .unwrap_or_else(|| panic!("Counter not in {report}"));
    assert_eq!(counter["mounts"], 1, "{report}");
    assert_eq!(counter["reRenders"], 1, "{report}");
    ab.run(&["close"]).success();
}
