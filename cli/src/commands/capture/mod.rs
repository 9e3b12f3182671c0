//! Capturing the page: `screenshot`, `pdf`, `snapshot`, `diff`.

pub mod diff;
pub mod pdf;
pub mod screenshot;
pub mod snapshot;
