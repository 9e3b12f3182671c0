//! Debugging and audits: `trace`, `profiler`, `record`, `console`, `errors`, `react`,
//! `vitals`, `a11y`, `addinitscript`, `removeinitscript`, `inspect`.

pub mod a11y;
pub mod addinitscript;
pub mod console;
pub mod errors;
pub mod inspect;
pub mod profiler;
pub mod react;
pub mod record;
pub mod removeinitscript;
pub mod trace;
pub mod vitals;
