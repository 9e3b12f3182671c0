//! Session control: `state`, `batch`, `auth`, `confirm`, `deny`, `stream`, `session`,
//! `dashboard`; the entry points `skills`, `doctor`, `install`, `upgrade`; and the commands abx
//! does not provide.

pub mod auth;
pub mod batch;
pub mod confirm;
pub mod dashboard;
pub mod deny;
pub mod doctor;
pub mod install;
pub mod mcp;
pub mod profiles;
pub mod session;
pub mod skills;
pub mod state;
pub mod stream;
pub mod unavailable;
pub mod unsupported;
pub mod upgrade;
pub mod webmcp;
