//! Navigation: `open`, `back`, `forward`, `reload`, `pushstate`.

pub mod back;
pub mod forward;
pub mod open;
pub mod pushstate;
pub mod reload;
