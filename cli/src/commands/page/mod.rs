//! Reading the page and waiting for it: `wait`, `eval`, `read`, `get`, `is`, `find`.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_page.rs"));
