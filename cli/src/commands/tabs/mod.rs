//! Tabs, windows, frames and dialogs.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_tabs.rs"));
