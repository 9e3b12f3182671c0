//! Settings of the page and the browser: `set`, `cookies`, `storage`, `network`, `clipboard`,
//! `device`.

pub mod clipboard;
pub mod cookies;
pub mod device;
pub mod network;
pub mod set;
pub mod storage;
