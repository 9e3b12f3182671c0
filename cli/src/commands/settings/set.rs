//! `set viewport|device|geo|offline|headers|credentials|media`: emulation and browser
//! settings of the active tab. `set credentials` answers servers' HTTP authentication.

use crate::commands::prelude::*;

/// `set viewport <w> <h> [scale]`.
pub const VIEWPORT: &str = "viewport";
/// `set device <name>`.
pub const DEVICE: &str = "device";
/// `set geo <lat> <lng>`.
pub const GEOLOCATION: &str = "geolocation";
/// `set offline [on|off]`.
pub const OFFLINE: &str = "offline";
/// `set headers <json>`.
pub const HEADERS: &str = "headers";
/// `set credentials <user> <pass>`.
pub const CREDENTIALS: &str = "credentials";
/// `set media [dark|light] [reduced-motion]`.
pub const MEDIA: &str = "emulatemedia";

/// The largest viewport side Chrome accepts (`Emulation.setDeviceMetricsOverride`).
pub const MAX_VIEWPORT: u32 = 10_000_000;

/// `{"width", "height", "deviceScaleFactor"?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ViewportRequest {
    /// CSS pixels.
    pub width: Option<i64>,
    /// CSS pixels.
    pub height: Option<i64>,
    /// Device pixel ratio (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_scale_factor: Option<f64>,
}

/// `{"device"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceRequest {
    /// A device name (`iPhone 15`, `Pixel 9`, …).
    pub device: Option<String>,
}

/// `{"latitude", "longitude"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GeolocationRequest {
    /// Degrees, ±90.
    pub latitude: Option<f64>,
    /// Degrees, ±180.
    pub longitude: Option<f64>,
}

/// `{"offline"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OfflineRequest {
    /// Offline (default) or back online.
    pub offline: Option<bool>,
}

/// `{"headers"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HeadersRequest {
    /// A JSON object of header names to values.
    pub headers: Option<Value>,
}

/// `{"colorScheme", "reducedMotion"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaRequest {
    /// `dark`, `light` or `no-preference`.
    pub color_scheme: Option<String>,
    /// `reduce` or `no-preference`.
    pub reduced_motion: Option<String>,
}

/// The command.
pub const COMMAND: Command = Command {
    names: &["set"],
    help: Some(Help {
        about: "Emulation and browser settings",
        usage: &["set <viewport|device|geo|offline|headers|credentials|media> [args...]"],
        examples: &[
            "set viewport 1280 720",
            "set viewport 390 844 3",
            "set device 'iPhone 15'",
            "set geo 59.91 10.75",
            "set offline on",
            "set headers '{\"X-Test\": \"1\"}'",
            "set credentials user secret",
            "set media dark reduced-motion",
        ],

        description: "Changes emulation and browser settings for the session's current and future tabs.",
        sections: &[(
            "Settings",
            &[
                (
                    "viewport <w> <h> [scale]",
                    "Viewport size in CSS pixels; scale is the device pixel ratio",
                ),
                (
                    "device <name>",
                    "Emulate a device: viewport, pixel ratio, touch, user agent",
                ),
                ("geo <lat> <lng>", "Geolocation"),
                (
                    "offline [on|off]",
                    "Cut the network or restore it (default on)",
                ),
                (
                    "headers <json>",
                    "Extra HTTP headers for every request ({} clears them)",
                ),
                (
                    "credentials <user> <pass>",
                    "HTTP authentication for current and new tabs",
                ),
                (
                    "media [dark|light] [reduced-motion]",
                    "Colour scheme and reduced-motion preferences",
                ),
            ],
        )],
        ..Help::BLANK
    }),
    grammar: Grammar::Request(parse),
    actions: &[
        Action::queued(VIEWPORT, |ctx| Box::pin(run_viewport(ctx))),
        Action::queued(DEVICE, |ctx| Box::pin(run_device(ctx))),
        Action::queued(GEOLOCATION, |ctx| Box::pin(run_geolocation(ctx))),
        Action::queued(OFFLINE, |ctx| Box::pin(run_offline(ctx))),
        Action::queued(HEADERS, |ctx| Box::pin(run_headers(ctx))),
        Action::queued(CREDENTIALS, |ctx| Box::pin(run_credentials(ctx))),
        Action::queued(MEDIA, |ctx| Box::pin(run_media(ctx))),
    ],
    mcp: MCP,
};

/// Its MCP tools: upstream's names, arguments (in the notation of `crate::mcp::tools`) and
/// profiles; the number is the tool's place in upstream's list, which `tools/list` keeps.
pub const MCP: &[McpTool] = &[
    McpTool::new(
        59,
        "agent_browser_set_viewport",
        "mobile",
        &["set", "viewport"],
        "width:i! height:i! scale:n",
    ),
    McpTool::new(
        60,
        "agent_browser_set_device",
        "mobile",
        &["set", "device"],
        "device:s!",
    ),
    McpTool::new(
        61,
        "agent_browser_set_geo",
        "mobile",
        &["set", "geo"],
        "latitude:n! longitude:n!",
    ),
    McpTool::new(
        62,
        "agent_browser_set_offline",
        "network",
        &["set", "offline"],
        "enabled:b!@O",
    ),
    McpTool::new(
        63,
        "agent_browser_set_headers",
        "network",
        &["set", "headers"],
        "headers:o!@J",
    ),
    McpTool::new(
        64,
        "agent_browser_set_credentials",
        "network",
        &["set", "credentials"],
        "username:s! password:s!",
    ),
    McpTool::new(
        65,
        "agent_browser_set_media",
        "mobile",
        &["set", "media"],
        "colorScheme:e(dark|light|no-preference) reducedMotion:e(reduce|no-preference)",
    )
    .arranged(mcp_words),
];

/// `agent_browser_set_media`'s words: the CLI's word for reduced motion is `reduced-motion`.
fn mcp_words(_args: &serde_json::Map<String, Value>, mut positional: Vec<String>) -> Vec<String> {
    for word in &mut positional {
        if word == "reduce" {
            *word = "reduced-motion".to_string();
        }
    }
    positional
}

fn parse(input: &mut Input<'_>) -> Result<Value, ParseError> {
    const VALID: &[&str] = &[
        "viewport",
        "device",
        "geo",
        "geolocation",
        "offline",
        "headers",
        "credentials",
        "auth",
        "media",
    ];
    let rest = input.rest;
    match rest.first().copied() {
        Some("viewport") => {
            const USAGE: &str = "set viewport <width> <height> [scale]";
            let int = |idx: usize| {
                rest.get(idx)
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or_else(|| ParseError::missing("set viewport", USAGE))
            };
            let mut request = ViewportRequest {
                width: Some(int(1)?),
                height: Some(int(2)?),
                device_scale_factor: None,
            };
            if let Some(raw) = rest.get(3) {
                let scale = raw
                    .parse::<f64>()
                    .ok()
                    .filter(|scale| scale.is_finite())
                    .ok_or_else(|| {
                        ParseError::invalid(
                            format!("set viewport scale expects a finite number, got '{raw}'"),
                            USAGE,
                        )
                    })?;
                request.device_scale_factor = Some(scale);
            }
            Ok(encode(VIEWPORT, &request))
        }
        Some("device") => {
            let device = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("set device", "set device <name>"))?;
            Ok(encode(
                DEVICE,
                &DeviceRequest {
                    device: Some(device.to_string()),
                },
            ))
        }
        Some("geo") | Some("geolocation") => {
            const USAGE: &str = "set geo <latitude> <longitude>";
            let float = |idx: usize| {
                rest.get(idx)
                    .and_then(|s| s.parse::<f64>().ok())
                    .ok_or_else(|| ParseError::missing("set geo", USAGE))
            };
            let request = GeolocationRequest {
                latitude: Some(float(1)?),
                longitude: Some(float(2)?),
            };
            Ok(encode(GEOLOCATION, &request))
        }
        Some("offline") => {
            let offline = rest.get(1).is_none_or(|s| *s != "off" && *s != "false");
            Ok(encode(
                OFFLINE,
                &OfflineRequest {
                    offline: Some(offline),
                },
            ))
        }
        Some("headers") => {
            let raw = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("set headers", "set headers <json>"))?;
            let headers: Value = serde_json::from_str(raw).map_err(|_| {
                ParseError::missing(
                    "set headers",
                    "set headers <json> (must be valid JSON object)",
                )
            })?;
            Ok(encode(
                HEADERS,
                &HeadersRequest {
                    headers: Some(headers),
                },
            ))
        }
        Some("credentials") | Some("auth") => {
            const USAGE: &str = "set credentials <username> <password>";
            let user = rest
                .get(1)
                .ok_or_else(|| ParseError::missing("set credentials", USAGE))?;
            let pass = rest
                .get(2)
                .ok_or_else(|| ParseError::missing("set credentials", USAGE))?;
            Ok(encode(
                CREDENTIALS,
                &CredentialsRequest {
                    username: Some(user.to_string()),
                    password: Some(pass.to_string()),
                },
            ))
        }
        Some("media") => {
            let color = if rest.contains(&"dark") {
                "dark"
            } else if rest.contains(&"light") {
                "light"
            } else {
                "no-preference"
            };
            let reduced = if rest.contains(&"reduced-motion") {
                "reduce"
            } else {
                "no-preference"
            };
            let request = MediaRequest {
                color_scheme: Some(color.into()),
                reduced_motion: Some(reduced.into()),
            };
            Ok(encode(MEDIA, &request))
        }
        Some(sub) => Err(ParseError::unknown_sub(sub, VALID)),
        None => Err(ParseError::missing(
            "set",
            "set <viewport|device|geo|offline|headers|credentials|media> [args...]",
        )),
    }
}

/// A viewport side from the request: a whole number from 1 to [`MAX_VIEWPORT`]. A value out of
/// that range is refused (never truncated to fit).
pub fn viewport_side(value: Option<i64>, name: &str) -> Result<u32, Failure> {
    let value = value.ok_or_else(|| Failure::message(abx_wire::Request::missing(name)))?;
    u32::try_from(value)
        .ok()
        .filter(|v| (1..=MAX_VIEWPORT).contains(v))
        .ok_or_else(|| {
            Failure::message(format!(
                "Invalid viewport {name}: {value} (must be 1 to {MAX_VIEWPORT})"
            ))
        })
}

async fn run_viewport(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: ViewportRequest = ctx.params()?;
    let width = viewport_side(request.width, "width")?;
    let height = viewport_side(request.height, "height")?;
    let session = ctx.session().await?;
    data(
        session
            .set_viewport(width, height, request.device_scale_factor)
            .await?,
    )
}

async fn run_device(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: DeviceRequest = ctx.params()?;
    let device = required(&request.device, "device")?;
    let session = ctx.session().await?;
    data(session.set_device(device).await?)
}

async fn run_geolocation(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: GeolocationRequest = ctx.params()?;
    let latitude = request
        .latitude
        .ok_or_else(|| Failure::message(abx_wire::Request::missing("latitude")))?;
    let longitude = request
        .longitude
        .ok_or_else(|| Failure::message(abx_wire::Request::missing("longitude")))?;
    let session = ctx.session().await?;
    session.set_geolocation(latitude, longitude).await?;
    Ok(json!({"latitude": latitude, "longitude": longitude}))
}

async fn run_offline(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: OfflineRequest = ctx.params()?;
    let offline = request.offline.unwrap_or(true);
    let session = ctx.session().await?;
    session.set_offline(offline).await?;
    Ok(json!({"offline": offline}))
}

async fn run_headers(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: HeadersRequest = ctx.params()?;
    let headers = request
        .headers
        .as_ref()
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let session = ctx.session().await?;
    Ok(json!({"headers": session.set_headers(&headers).await?}))
}

async fn run_media(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: MediaRequest = ctx.params()?;
    let session = ctx.session().await?;
    session
        .set_media(
            request.color_scheme.as_deref(),
            request.reduced_motion.as_deref(),
        )
        .await?;
    Ok(json!({"colorScheme": request.color_scheme, "reducedMotion": request.reduced_motion}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewport_sides_out_of_range_are_refused_not_truncated() {
        assert_eq!(viewport_side(Some(800), "width").ok(), Some(800));
        assert_eq!(
            viewport_side(Some(i64::from(MAX_VIEWPORT)), "width").ok(),
            Some(MAX_VIEWPORT)
        );
        // 99999999999 as u32 is 1215752191: it must not become a (wrong) valid width.
        for bad in [99_999_999_999, i64::from(u32::MAX) + 1, 0, -1] {
            let err = viewport_side(Some(bad), "width").expect_err("out of range");
            assert_eq!(
                err.message,
                format!("Invalid viewport width: {bad} (must be 1 to 10000000)")
            );
        }
        assert_eq!(
            viewport_side(None, "height").expect_err("missing").message,
            "Missing required parameter: height"
        );
    }
}

/// `credentials`: `{"username", "password"}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CredentialsRequest {
    /// User name.
    pub username: Option<String>,
    /// Password (never logged or echoed).
    pub password: Option<String>,
}

async fn run_credentials(ctx: &Ctx<'_>) -> Result<Value, Failure> {
    let request: CredentialsRequest = ctx.params()?;
    let username = required(&request.username, "username")?;
    let password = required(&request.password, "password")?;
    let session = ctx.session().await?;
    session.set_http_credentials(username, password).await?;
    Ok(json!({"set": true}))
}
