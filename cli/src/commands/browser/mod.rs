//! The session's browser: `launch` (sent before a command, or by `open` and `connect`),
//! `connect`, `close`.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_browser.rs"));
