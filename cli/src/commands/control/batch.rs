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
        examples: &[
            "batch 'open example.com' 'snapshot -i'",
            "batch --bail 'open example.com' 'click @e1' screenshot",
            "batch < commands.json",
            "batch --json --omit-command < commands.json",
        ],

        description: "\
Runs several commands one after the other in one invocation: each quoted argument is a
command line, or, without arguments, stdin holds a JSON array of argument arrays. Results are
printed in order, a blank line apart (a JSON array with --json). The exit status is 1 when any
command failed.",
        sections: &[(
            "Options",
            &[
                (
                    "--bail",
                    "Stop at the first failure (default: run them all)",
                ),
                (
                    "--omit-command",
                    "\
With --json, each result has a zero-based index instead of
the command's words",
                ),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[Action::local(ACTION)],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[McpTool::new(
    122,
    "agent_browser_batch",
    "debug",
    &["batch"],
    "commands:aa!@C bail:b@--bail omitCommand:b@--omit-command",
)];

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
