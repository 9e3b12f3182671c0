//! Session control: `state`, `batch`, `auth`, `confirm`, `deny`, `stream`,
//! `session`, and the commands abx does not provide.

pub mod auth;
pub mod batch;
pub mod confirm;
pub mod deny;
pub mod mcp;
pub mod profiles;
pub mod session;
pub mod state;
pub mod stream;
pub mod unsupported;
