//! Page interaction: clicks, typing, keys, form controls, scrolling, mouse and touch input.

pub mod check;
pub mod click;
pub mod dblclick;
pub mod download;
pub mod drag;
pub mod fill;
pub mod focus;
pub mod highlight;
pub mod hover;
pub mod keyboard;
pub mod keydown;
pub mod keyup;
pub mod mouse;
pub mod press;
pub mod scroll;
pub mod scrollintoview;
pub mod select;
pub mod swipe;
pub mod tap;
pub mod typing;
pub mod uncheck;
pub mod upload;
