//! Session control: `state`, `batch`, `auth`, `confirm`, `deny`, `stream`, `session`,
//! `dashboard`; the entry points `skills`, `doctor`, `install`, `upgrade`; and the commands abx
//! does not provide.

// A `pub mod` for each other file of this directory, written by cli/build.rs.
include!(concat!(env!("OUT_DIR"), "/commands_control.rs"));
