//! Reading the page and waiting for it: `wait`, `eval`, `read`, `get`, `is`, `find`.

pub mod eval;
pub mod find;
pub mod get;
pub mod is;
pub mod read;
pub mod wait;
