//! Emulation (viewport, device, geolocation, offline, extra headers, media features), cookies
//! and web storage of the active tab. Results are typed; the daemon builds its replies.
//!
//! Cookies are scoped to the active page on purpose: on a shared anchor, `cookies clear` must
//! not log the other stages out, so it deletes the cookies the current page can see instead of
//! clearing the whole browser (upstream's `Network.clearBrowserCookies`).

use std::collections::BTreeMap;
use std::time::Duration;

use abx_cdp::Command;
use abx_cdp::protocol::browser_protocol::{emulation, network};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{EngineError, Result};
use crate::js::PageFn;
use crate::session::Session;

/// A built-in device profile (upstream's table).
#[derive(Clone, Copy, Debug)]
pub struct Device {
    /// Display name.
    pub name: &'static str,
    /// CSS width.
    pub width: u32,
    /// CSS height.
    pub height: u32,
    /// Device pixel ratio.
    pub scale: f64,
    /// User agent.
    pub user_agent: &'static str,
}

const IOS_UA: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPAD_UA: &str = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const ANDROID_UA: &str = "Mozilla/5.0 (Linux; Android 14; Pixel) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36";

/// Upstream's device table (contract §2.9).
pub const DEVICES: &[Device] = &[
    Device {
        name: "iPhone 15",
        width: 393,
        height: 852,
        scale: 3.0,
        user_agent: IOS_UA,
    },
    Device {
        name: "iPhone 16",
        width: 393,
        height: 852,
        scale: 3.0,
        user_agent: IOS_UA,
    },
    Device {
        name: "iPhone 16 Pro",
        width: 402,
        height: 874,
        scale: 3.0,
        user_agent: IOS_UA,
    },
    Device {
        name: "iPhone 17",
        width: 402,
        height: 874,
        scale: 3.0,
        user_agent: IOS_UA,
    },
    Device {
        name: "iPhone 12",
        width: 390,
        height: 844,
        scale: 3.0,
        user_agent: IOS_UA,
    },
    Device {
        name: "iPhone 14",
        width: 390,
        height: 844,
        scale: 3.0,
        user_agent: IOS_UA,
    },
    Device {
        name: "iPad",
        width: 820,
        height: 1180,
        scale: 2.0,
        user_agent: IPAD_UA,
    },
    Device {
        name: "iPad Air",
        width: 820,
        height: 1180,
        scale: 2.0,
        user_agent: IPAD_UA,
    },
    Device {
        name: "iPad Pro",
        width: 1024,
        height: 1366,
        scale: 2.0,
        user_agent: IPAD_UA,
    },
    Device {
        name: "Pixel 9",
        width: 412,
        height: 923,
        scale: 2.625,
        user_agent: ANDROID_UA,
    },
    Device {
        name: "Pixel 5",
        width: 393,
        height: 851,
        scale: 2.75,
        user_agent: ANDROID_UA,
    },
    Device {
        name: "Pixel 7",
        width: 412,
        height: 915,
        scale: 2.625,
        user_agent: ANDROID_UA,
    },
    Device {
        name: "Galaxy S25",
        width: 360,
        height: 800,
        scale: 3.0,
        user_agent: ANDROID_UA,
    },
    Device {
        name: "Galaxy S21",
        width: 360,
        height: 800,
        scale: 3.0,
        user_agent: ANDROID_UA,
    },
];

/// Finds a device by name, case-insensitively and ignoring spaces.
pub fn device(name: &str) -> Option<&'static Device> {
    let key = |s: &str| {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let wanted = key(name);
    DEVICES.iter().find(|d| key(d.name) == wanted)
}

/// The metrics applied by `set viewport` / `set device`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Viewport {
    /// Device name (for `set device`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Device scale factor.
    pub device_scale_factor: f64,
    /// Mobile emulation.
    pub mobile: bool,
}

/// What [`Session::storage_get`] read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageRead {
    /// One item: its value, or `None` when the key is not set.
    Item(Option<String>),
    /// Every item, by key.
    All(BTreeMap<String, String>),
}

const SHORT: Duration = Duration::from_secs(10);

/// `localStorage` / `sessionStorage`: `get` one key, `all` keys, `set`, `clear`.
const STORAGE_FN: PageFn = PageFn::new(include_str!("emulation/storage.js"));

impl Session {
    async fn page_call<C: Command>(&self, command: &str, cdp_command: C) -> Result<C::Response> {
        // Emulation can change what a page shows without the page noticing (media features,
        // user agent, touch): no stored snapshot survives it.
        self.forget_snapshots();
        let tab = self.active_tab().await?;
        tab.request(command, cdp_command, SHORT).await
    }

    /// `set viewport <w> <h> [scale]`.
    pub async fn set_viewport(
        &self,
        width: u32,
        height: u32,
        scale: Option<f64>,
    ) -> Result<Viewport> {
        if width == 0 || height == 0 {
            return Err(EngineError::Invalid(
                "Viewport width and height must be positive".into(),
            ));
        }
        let scale = scale.unwrap_or(1.0);
        self.page_call(
            "set viewport",
            emulation::SetDeviceMetricsOverrideParams::new(width, height, scale, false),
        )
        .await?;
        Ok(Viewport {
            device: None,
            width,
            height,
            device_scale_factor: scale,
            mobile: false,
        })
    }

    /// `set device <name>`.
    pub async fn set_device(&self, name: &str) -> Result<Viewport> {
        let Some(d) = device(name) else {
            let names: Vec<&str> = DEVICES.iter().map(|d| d.name).collect();
            return Err(EngineError::Invalid(format!(
                "Unknown device: {name}. Supported: {}",
                names.join(", ")
            )));
        };
        self.page_call(
            "set device",
            emulation::SetDeviceMetricsOverrideParams::new(d.width, d.height, d.scale, true),
        )
        .await?;
        self.page_call(
            "set device",
            emulation::SetUserAgentOverrideParams::new(d.user_agent),
        )
        .await?;
        let touch = emulation::SetTouchEmulationEnabledParams {
            max_touch_points: Some(5),
            ..emulation::SetTouchEmulationEnabledParams::new(true)
        };
        self.page_call("set device", touch).await?;
        Ok(Viewport {
            device: Some(d.name.into()),
            width: d.width,
            height: d.height,
            device_scale_factor: d.scale,
            mobile: true,
        })
    }

    /// `set geo <lat> <lng>`: overrides the geolocation the page sees.
    pub async fn set_geolocation(&self, latitude: f64, longitude: f64) -> Result<()> {
        if !(-90.0..=90.0).contains(&latitude) || !(-180.0..=180.0).contains(&longitude) {
            return Err(EngineError::Invalid(
                "Latitude must be within ±90 and longitude within ±180".into(),
            ));
        }
        let geolocation = emulation::SetGeolocationOverrideParams {
            latitude: Some(latitude),
            longitude: Some(longitude),
            accuracy: Some(1.0),
            ..Default::default()
        };
        self.page_call("set geolocation", geolocation).await?;
        Ok(())
    }

    /// `set offline [on|off]`: emulates a lost (or restored) network.
    pub async fn set_offline(&self, offline: bool) -> Result<()> {
        self.page_call("set offline", network::EnableParams::default())
            .await?;
        // Deprecated in the protocol for `emulateNetworkConditionsByRule` +
        // `overrideNetworkState`, still served by Chrome 156; moving is a change of its own.
        #[allow(deprecated)]
        let conditions = network::EmulateNetworkConditionsParams::new(offline, 0.0, -1.0, -1.0);
        self.page_call("set offline", conditions).await?;
        Ok(())
    }

    /// `set headers <json>`: extra headers on every request of the tab. Values that are not
    /// strings are sent as their JSON text; returns the headers as sent.
    pub async fn set_headers(
        &self,
        headers: &Map<String, Value>,
    ) -> Result<BTreeMap<String, String>> {
        let headers: BTreeMap<String, String> = headers
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().map_or_else(|| v.to_string(), str::to_string),
                )
            })
            .collect();
        self.page_call("set headers", network::EnableParams::default())
            .await?;
        self.page_call(
            "set headers",
            network::SetExtraHttpHeadersParams::new(network::Headers::new(json!(headers))),
        )
        .await?;
        Ok(headers)
    }

    /// `set media [dark|light] [reduced-motion]`: emulates `prefers-color-scheme` and
    /// `prefers-reduced-motion` (a `None` feature is left as the browser has it).
    pub async fn set_media(
        &self,
        color_scheme: Option<&str>,
        reduced_motion: Option<&str>,
    ) -> Result<()> {
        let mut features = Vec::new();
        if let Some(scheme) = color_scheme {
            features.push(emulation::MediaFeature::new("prefers-color-scheme", scheme));
        }
        if let Some(motion) = reduced_motion {
            features.push(emulation::MediaFeature::new(
                "prefers-reduced-motion",
                motion,
            ));
        }
        let media = emulation::SetEmulatedMediaParams {
            features: Some(features),
            ..Default::default()
        };
        self.page_call("set media", media).await?;
        Ok(())
    }

    /// `cookies get`: the cookies the active page can see.
    pub async fn cookies(&self) -> Result<Vec<Value>> {
        // Own reply type: the cookies go to the caller as Chrome sent them (the generated
        // `Cookie` would drop fields newer than the pinned protocol and reorder the rest).
        #[derive(serde::Deserialize)]
        struct Cookies {
            cookies: Vec<Value>,
        }
        let tab = self.active_tab().await?;
        let get = network::GetCookiesParams::default();
        let reply: Cookies = tab
            .guarded("get cookies", async {
                Ok(tab.cdp().call_as(&get, Some(SHORT)).await?)
            })
            .await?;
        Ok(reply.cookies)
    }

    /// `cookies set`: each cookie (a CDP `CookieParam` object) without `url` or `domain` is set
    /// for the active page's URL.
    pub async fn set_cookies(&self, cookies: &[Value]) -> Result<()> {
        let page_url = self.url().await?;
        let mut prepared = Vec::with_capacity(cookies.len());
        for cookie in cookies {
            let mut cookie = cookie.clone();
            let Some(map) = cookie.as_object_mut() else {
                return Err(EngineError::Invalid("Each cookie must be an object".into()));
            };
            if !map.contains_key("name") {
                return Err(EngineError::Invalid("A cookie needs a name".into()));
            }
            if !map.contains_key("url") && !map.contains_key("domain") {
                if !page_url.starts_with("http") {
                    return Err(EngineError::CookieNeedsUrl { page_url });
                }
                map.insert("url".into(), json!(page_url));
            }
            prepared.push(cookie);
        }
        // Raw JSON: the caller's cookie objects go to Chrome as given, and Chrome's own
        // validation errors reach the caller (the generated `CookieParam` would refuse or drop
        // fields before Chrome sees them).
        let tab = self.active_tab().await?;
        tab.call(
            "set cookies",
            "Network.setCookies",
            json!({"cookies": prepared}),
            SHORT,
        )
        .await?;
        Ok(())
    }

    /// `cookies clear`: deletes the cookies the active page can see (not the whole browser's).
    pub async fn clear_cookies(&self) -> Result<()> {
        for cookie in self.cookies().await? {
            let text = |key: &str| cookie.get(key).and_then(Value::as_str).map(str::to_string);
            let delete = network::DeleteCookiesParams {
                domain: text("domain"),
                path: text("path"),
                ..network::DeleteCookiesParams::new(text("name").unwrap_or_default())
            };
            self.page_call("clear cookies", delete).await?;
        }
        Ok(())
    }

    fn storage_area(kind: &str) -> Result<&'static str> {
        match kind {
            "local" => Ok("local"),
            "session" => Ok("session"),
            other => Err(EngineError::Invalid(format!(
                "Unknown storage type: {other}. Use local or session"
            ))),
        }
    }

    /// `storage local|session [key]`: one item's value (`None` when the key is not set), or
    /// every item.
    pub async fn storage_get(&self, kind: &str, key: Option<&str>) -> Result<StorageRead> {
        let area = Self::storage_area(kind)?;
        match key {
            Some(key) => {
                let script = STORAGE_FN.call(&[json!(area), json!("get"), json!(key)]);
                let value = self.page(Some(SHORT)).await?.evaluate(&script).await?.value;
                Ok(StorageRead::Item(value.as_str().map(str::to_string)))
            }
            None => {
                let script = STORAGE_FN.call(&[json!(area), json!("all")]);
                let value = self.page(Some(SHORT)).await?.evaluate(&script).await?.value;
                let items = value
                    .as_object()
                    .map(|map| {
                        map.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(StorageRead::All(items))
            }
        }
    }

    /// `storage local|session set <k> <v>`.
    pub async fn storage_set(&self, kind: &str, key: &str, value: &str) -> Result<()> {
        let area = Self::storage_area(kind)?;
        let script = STORAGE_FN.call(&[json!(area), json!("set"), json!(key), json!(value)]);
        self.page(Some(SHORT)).await?.evaluate(&script).await?;
        Ok(())
    }

    /// `storage local|session clear`.
    pub async fn storage_clear(&self, kind: &str) -> Result<()> {
        let area = Self::storage_area(kind)?;
        let script = STORAGE_FN.call(&[json!(area), json!("clear")]);
        self.page(Some(SHORT)).await?.evaluate(&script).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_match_case_and_space_insensitively() {
        assert_eq!(device("iphone14").map(|d| d.width), Some(390));
        assert_eq!(device("Pixel 9").map(|d| d.height), Some(923));
        assert!(device("Nokia 3310").is_none());
    }
}
