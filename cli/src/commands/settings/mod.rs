//! Settings of the page and the browser: `set`, `cookies`, `storage`, `network`, `clipboard`,
//! `device`.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_settings.rs"));
