//! Tabs, windows, frames and dialogs.

pub mod dialog;
pub mod frame;
pub mod tab;
pub mod window;
