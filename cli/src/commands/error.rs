//! Errors from parsing a command line, with upstream's wording and JSON `type`.

use std::fmt;

use crate::session::session_name_error;

/// Why argv could not be turned into a request. [`ParseError::kind`] is the JSON `type` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The command word is not a command.
    UnknownCommand {
        /// The word as typed.
        command: String,
    },
    /// The command exists but its subcommand does not.
    UnknownSubcommand {
        /// The subcommand as typed.
        subcommand: String,
        /// The subcommands that exist.
        valid_options: &'static [&'static str],
    },
    /// Required arguments are missing.
    MissingArguments {
        /// What was being parsed (`click`, `get text`, …).
        context: String,
        /// Usage line without the `agent-browser ` prefix.
        usage: &'static str,
    },
    /// An argument has a value the command cannot use.
    InvalidValue {
        /// What is wrong with it.
        message: String,
        /// Usage line without the `agent-browser ` prefix.
        usage: &'static str,
    },
    /// A session or restore name has characters other than letters, digits, `-` and `_`.
    InvalidSessionName {
        /// The rejected name.
        name: String,
    },
}

impl ParseError {
    /// The JSON `type` of this error.
    pub fn kind(&self) -> &'static str {
        match self {
            ParseError::UnknownCommand { .. } => "unknown_command",
            ParseError::UnknownSubcommand { .. } => "unknown_subcommand",
            ParseError::MissingArguments { .. } => "missing_arguments",
            ParseError::InvalidValue { .. } => "invalid_value",
            ParseError::InvalidSessionName { .. } => "invalid_session_name",
        }
    }

    pub(crate) fn missing(context: &str, usage: &'static str) -> Self {
        ParseError::MissingArguments {
            context: context.to_string(),
            usage,
        }
    }

    /// A missing-arguments error that names `context` instead (a flag whose context depends on
    /// the words before it: `find <locator> … --name`); any other error unchanged.
    pub(crate) fn in_context(self, context: &str) -> Self {
        match self {
            ParseError::MissingArguments { usage, .. } => ParseError::missing(context, usage),
            other => other,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>, usage: &'static str) -> Self {
        ParseError::InvalidValue {
            message: message.into(),
            usage,
        }
    }

    pub(crate) fn unknown_sub(subcommand: &str, valid_options: &'static [&'static str]) -> Self {
        ParseError::UnknownSubcommand {
            subcommand: subcommand.to_string(),
            valid_options,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownCommand { command } => write!(f, "Unknown command: {command}"),
            ParseError::UnknownSubcommand {
                subcommand,
                valid_options,
            } => write!(
                f,
                "Unknown subcommand: {subcommand}\nValid options: {}",
                valid_options.join(", ")
            ),
            ParseError::MissingArguments { context, usage } => write!(
                f,
                "Missing arguments for: {context}\nUsage: agent-browser {usage}"
            ),
            ParseError::InvalidValue { message, usage } => {
                write!(f, "{message}\nUsage: agent-browser {usage}")
            }
            ParseError::InvalidSessionName { name } => f.write_str(&session_name_error(name)),
        }
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::ParseError;

    #[test]
    fn in_context_renames_only_a_missing_arguments_error() {
        assert_eq!(
            ParseError::missing("find", "u").in_context("find role"),
            ParseError::missing("find role", "u")
        );
        let invalid = ParseError::invalid("bad", "u");
        assert_eq!(invalid.clone().in_context("find role"), invalid);
    }
}
