//! `batch [--bail] [--omit-command] ["cmd args" ...]`: several commands in one invocation, from the arguments or
//! a JSON array of argument arrays on stdin. The CLI runs the loop itself (the `batch` action
//! is never sent): each entry is parsed and sent as its own request.

use crate::commands::prelude::*;

/// The action the grammar produces (the CLI turns it into a batch plan).
pub const ACTION: &str = "batch";

/// `{"bail", "commands"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchRequest {
    /// `--bail`: stop at the first failed step.
    #[serde(default)]
    pub bail: bool,
    /// `--omit-command`: `--json` results carry the step's `index` instead of its `command`.
    #[serde(
        default,
        rename = "omitCommand",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub omit_command: bool,
    /// The steps as command lines; without them, stdin holds a JSON array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commands: Option<Vec<String>>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Run several commands (arguments, or a JSON array on stdin)",
        usage: &["batch [--bail] [--omit-command] [\"cmd args\" ...]"],
        examples: &["batch 'open example.com' 'snapshot -i'"],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::local(ACTION)],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    let commands: Vec<String> = rest
        .iter()
        .filter(|a| **a != "--bail" && **a != "--omit-command")
        .map(|a| a.to_string())
        .collect();
    let request = BatchRequest {
        bail: rest.contains(&"--bail"),
        omit_command: rest.contains(&"--omit-command"),
        commands: (!commands.is_empty()).then_some(commands),
    };
    Ok(encode(ACTION, &request))
}
