//! A proxy setting split into the server and the credentials written into it: the CLI sends the
//! parts in its `launch` request, the daemon reads `AGENT_BROWSER_PROXY` and that request's
//! server the same way.

/// A proxy URL split into the server Chrome is pointed at and the credentials of its authority.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProxyParts {
    /// The URL without its credentials (`scheme://host:port`), or the value as written.
    pub server: String,
    /// The user name before the authority's `@`, as written (percent escapes kept).
    pub username: Option<String>,
    /// The password after the user name's `:`, as written.
    pub password: Option<String>,
}

/// Splits `scheme://user:pass@host:port` into its server and credentials. The credentials are
/// what comes before the last `@` of the authority; an empty user name or password is none. A
/// value without `://`, or without credentials, is the server as written.
///
/// ```
/// let parts = abx_wire::split_proxy("http://u:p%40ss@127.0.0.1:3128");
/// assert_eq!(parts.server, "http://127.0.0.1:3128");
/// assert_eq!(parts.username.as_deref(), Some("u"));
/// assert_eq!(parts.password.as_deref(), Some("p%40ss"));
/// assert_eq!(abx_wire::split_proxy("socks5://host:1080").server, "socks5://host:1080");
/// ```
pub fn split_proxy(raw: &str) -> ProxyParts {
    let whole = || ProxyParts {
        server: raw.to_string(),
        ..ProxyParts::default()
    };
    let Some((scheme, rest)) = raw.split_once("://") else {
        return whole();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return whole();
    };
    let (credentials, host) = (&rest[..at], &rest[at + 1..]);
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let (username, password) = match credentials.split_once(':') {
        Some((user, password)) => (non_empty(user), non_empty(password)),
        None => (non_empty(credentials), None),
    };
    ProxyParts {
        server: format!("{scheme}://{host}"),
        username,
        password,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_come_out_of_the_authority_only() {
        let parts = |raw| {
            let p = split_proxy(raw);
            (p.server, p.username, p.password)
        };
        let s = |v: &str| Some(v.to_string());
        assert_eq!(
            parts("http://u:p@127.0.0.1:3128"),
            ("http://127.0.0.1:3128".into(), s("u"), s("p"))
        );
        assert_eq!(parts("http://u@h:1"), ("http://h:1".into(), s("u"), None));
        assert_eq!(parts("http://:p@h:1"), ("http://h:1".into(), None, s("p")));
        assert_eq!(parts("http://u:@h:1"), ("http://h:1".into(), s("u"), None));
        // The last `@` of the authority: a user name may hold one, escaped or not.
        assert_eq!(
            parts("http://a@b:c@h:1"),
            ("http://h:1".into(), s("a@b"), s("c"))
        );
        // An `@` after the authority is not a credential.
        assert_eq!(
            parts("http://h:1/x@y"),
            ("http://h:1/x@y".into(), None, None)
        );
        assert_eq!(parts("h:3128"), ("h:3128".into(), None, None));
        assert_eq!(parts("direct://"), ("direct://".into(), None, None));
    }
}
