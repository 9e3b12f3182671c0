//! What every command module uses.

pub(crate) use abx_daemon::dispatch::Ctx;
pub(crate) use abx_daemon::errors::Failure;
pub(crate) use abx_daemon::protocol::EncodedData;
pub(crate) use abx_wire::{NoParams, encode};
pub(crate) use serde::{Deserialize, Serialize};
pub(crate) use serde_json::{Value, json};

pub(crate) use super::error::ParseError;
pub(crate) use super::options::{Flag, Word, scan};
pub(crate) use super::spec::{Action, Command, Grammar, Help, Input};
pub(crate) use super::support::{SelectorRequest, data, required, selector_grammar};
pub(crate) use crate::mcp::tool::McpTool;
pub(crate) use crate::output::text::{Render, Text, b, i, pretty, s, u};
