//! Property tests for argv parsing: any argv gives an invocation or a typed parse error (exit 1),
//! never a panic.

use agent_browser::host::MemoryHost;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "open",
    "click",
    "fill",
    "type",
    "get",
    "text",
    "url",
    "title",
    "snapshot",
    "-i",
    "-c",
    "-d",
    "--json",
    "--session",
    "--cdp",
    "9222",
    "tab",
    "new",
    "close",
    "--all",
    "wait",
    "--text",
    "--url",
    "--timeout",
    "eval",
    "-b",
    "find",
    "role",
    "button",
    "--name",
    "set",
    "viewport",
    "cookies",
    "storage",
    "local",
    "dialog",
    "accept",
    "batch",
    "--headed",
    "false",
    "--args",
    "@e1",
    "#id",
    "",
    "-",
    "--",
    "--profile",
    "--allowed-domains",
    "screenshot",
    "--full",
    "mouse",
    "wheel",
    "keyboard",
    "press",
    "Enter",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn word_soup_never_panics(words in proptest::collection::vec(prop_oneof![
        proptest::sample::select(WORDS).prop_map(str::to_string),
        ".{0,12}",
    ], 0..8)) {
        let host = MemoryHost::new().with_var("AGENT_BROWSER_SESSION", "p");
        match agent_browser::parse(&words, &host) {
            Ok(invocation) => {
                for request in invocation.requests() {
                    prop_assert!(request.get("action").and_then(|a| a.as_str()).is_some(), "{request}");
                }
            }
            Err(failure) => prop_assert_eq!(failure.render().exit_code, 1),
        }
    }
}
