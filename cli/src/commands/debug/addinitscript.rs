//! `addinitscript <script>`: runs a script in every new document of the session's tabs, before
//! the page's own scripts; prints the identifier `removeinitscript` takes. (Upstream 0.41.2
//! documents the action but its CLI does not know the word.)

use crate::commands::prelude::*;

/// The wire action.
pub const ACTION: &str = "addinitscript";

const USAGE: &str = "addinitscript <script>";

/// `{"script"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AddInitScriptRequest {
    /// The JavaScript source.
    pub script: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &[ACTION],
    help: Some(Help {
        about: "Run a script in every new document (before the page's scripts)",
        usage: &[USAGE],
        examples: &[
            "addinitscript 'window.__agent = true'",
            "addinitscript \"Object.defineProperty(navigator, 'webdriver', {get: () => false})\"",
        ],

        description: "\
Registers JavaScript that runs in every new document of the session's tabs, before the
page's own scripts, and prints its identifier (for `removeinitscript`). The global
--init-script <path> does the same from a file at launch.",
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(ACTION, |ctx| Box::pin(run(ctx))).rendered(Render {
            first: Some(added),
            example: r#"{"identifier":"1"}"#,
            ..Render::DEFAULT
        }),
    ],
    mcp: &[],
};

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let script = input
        .rest
        .first()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ParseError::missing(ACTION, USAGE))?;
    Ok(encode(
        ACTION,
        &AddInitScriptRequest {
            script: Some(script.to_string()),
        },
    ))
}

/// `✓ Init script added: <id>`.
fn added(t: &mut Text<'_>, data: &Value) -> bool {
    let Some(id) = s(data, "identifier") else {
        return false;
    };
    let p = t.p;
    t.out(&format!("{} Init script added: {id}", p.ok()));
    true
}

async fn run(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: AddInitScriptRequest = ctx.params()?;
    let script = required(&request.script, "script")?;
    let session = ctx.session().await?;
    let identifier = session.add_init_script(script).await?;
    Ok(json!({"added": true, "identifier": identifier}))
}
