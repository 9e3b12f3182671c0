//! The session's browser: `launch` (sent before a command, or by `open` and `connect`),
//! `connect`, `close`.

pub mod close;
pub mod connect;
pub mod launch;
