//! Debugging and audits: `trace`, `profiler`, `record`, `console`, `errors`, `react`,
//! `vitals`, `a11y`, `addinitscript`, `removeinitscript`, `inspect`.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_debug.rs"));
