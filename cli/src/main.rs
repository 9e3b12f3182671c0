//! The `agent-browser` binary. Wiring (daemon connection, spawn) is added separately.

fn main() {}
