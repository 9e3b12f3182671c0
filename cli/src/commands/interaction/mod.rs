//! Page interaction: clicks, typing, keys, form controls, scrolling, mouse and touch input.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_interaction.rs"));
