//! `network route|unroute|requests|request|har`: interception, the request log and HAR
//! recording. Not implemented yet: the daemon answers `Not yet implemented: <action>`.

use crate::commands::prelude::*;
use crate::commands::support::flag_value;

/// `network route <url>`.
pub const ROUTE: &str = "route";
/// `network unroute [url]`.
pub const UNROUTE: &str = "unroute";
/// `network requests`.
pub const REQUESTS: &str = "requests";
/// `network request <id>`.
pub const REQUEST: &str = "request_detail";
/// `network har start`.
pub const HAR_START: &str = "har_start";
/// `network har stop [path]`.
pub const HAR_STOP: &str = "har_stop";

/// The command.
pub const COMMAND: Command = Command {
    names: &["network"],
    help: Some(Help {
        about: "Interception, request log, HAR",
        usage: &["network <route|unroute|requests|request|har> [args...]"],
        examples: &[
            "network route '**/ads/*' --abort",
            "network requests --filter api",
        ],
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::todo(ROUTE),
        Action::todo(UNROUTE),
        Action::todo(REQUESTS),
        Action::todo(REQUEST),
        Action::todo(HAR_START).rendered(Render {
            started: Some("HAR recording started"),
            ..Render::DEFAULT
        }),
        Action::todo(HAR_STOP).rendered(Render {
            saved: Some(har_saved),
            ..Render::DEFAULT
        }),
    ],
};

fn har_saved(t: &mut Text<'_>, data: &Value, path: &str) {
    let p = t.p;
    t.out(&format!(
        "{} HAR saved to {} ({} requests)",
        p.ok(),
        p.green(path),
        u(data, "requestCount").unwrap_or(0)
    ));
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    let rest = input.rest;
    const VALID: &[&str] = &["route", "unroute", "requests", "request", "har"];
    match rest.first().copied() {
        Some("route") => {
            let url = rest.get(1).ok_or_else(|| {
                ParseError::missing(
                    "network route",
                    "network route <url> [--abort|--body <json>] [--resource-type <csv>]",
                )
            })?;
            let mut req = Req::new(ROUTE)
                .set("url", *url)
                .set("abort", rest.contains(&"--abort"));
            if let Some(body) = flag_value(rest, &["--body"]) {
                req.put("response", json!({ "body": body }));
            }
            if let Some(rt) = flag_value(rest, &["--resource-type", "--resource-types"]) {
                req.put("resourceType", rt);
            }
            if let Some(origin) = flag_value(rest, &["--allow-origin"]) {
                req.put("allowOrigin", origin);
            }
            ok(req)
        }
        Some("unroute") => {
            let mut req = Req::new(UNROUTE);
            if let Some(url) = rest.get(1) {
                req.put("url", *url);
            }
            ok(req)
        }
        Some("requests") => {
            let mut req = Req::new(REQUESTS).set("clear", rest.contains(&"--clear"));
            for (flag, key) in [
                ("--filter", "filter"),
                ("--type", "type"),
                ("--method", "method"),
                ("--status", "status"),
            ] {
                if let Some(v) = flag_value(rest, &[flag]) {
                    req.put(key, v);
                }
            }
            ok(req)
        }
        Some("request") => {
            let id = rest.get(1).ok_or_else(|| {
                ParseError::missing("network request", "network request <requestId>")
            })?;
            ok(Req::new(REQUEST).set("requestId", *id))
        }
        Some("har") => match rest.get(1).copied() {
            Some("start") => {
                let mut req = Req::new(HAR_START);
                if let Some(content) = flag_value(rest, &["--content"]) {
                    req.put("content", content);
                }
                ok(req)
            }
            Some("stop") => {
                let mut req = Req::new(HAR_STOP);
                if let Some(path) = rest.get(2) {
                    req.put("path", *path);
                }
                ok(req)
            }
            Some(sub) => Err(ParseError::unknown_sub(sub, &["start", "stop"])),
            None => Err(ParseError::missing(
                "network har",
                "network har <start|stop> [path]",
            )),
        },
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "network",
            "network <route|unroute|requests|request|har> [args...]",
        )),
    }
}
