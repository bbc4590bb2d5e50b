//! The names the server answers to, so that a web page cannot reach it under a name of
//! its own (DNS rebinding): a page on `http://rebind.example:7878` whose name comes to
//! resolve to 127.0.0.1 is, to the browser, its own origin, and would pass every
//! cross-site check — but its requests say `Host: rebind.example:7878`, a name this
//! server was never given.
//!
//! Always answered: the loopback names (`localhost`, `*.localhost`, which browsers
//! resolve to loopback themselves) and loopback addresses. Bound beyond loopback, any
//! address too (an address is not a name a page can re-point), and the names given
//! with `--allowed-host` (a leading dot takes every name under it) and the host of
//! `--public-url`. The port is not looked at: a proxy or a forwarded port may change it.

use std::net::IpAddr;

/// The `Host` names (and `Origin`s) the server accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedHosts {
    /// Bound to a loopback address: an address that is not loopback cannot be how a
    /// client reached it.
    pub loopback_bound: bool,
    /// Names of `--allowed-host` and `--public-url`, lower case, without a trailing
    /// dot; one starting with '.' takes every name that ends with it.
    pub names: Vec<String>,
    /// The origins of `--public-url` (`https://name[:port]`): a browser behind a proxy
    /// that rewrites `Host` still sends these.
    pub public_origins: Vec<String>,
}

/// An `--allowed-host` or `--public-url` that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllowedHostError {
    #[error(
        "--allowed-host {0:?}: give a host name (e.g. keystorm.example.com, or .example.com \
         for every name under it), without a scheme, port or path"
    )]
    BadName(String),
    #[error(
        "--public-url {0:?}: give the URL browsers reach this server by, as \
         http(s)://NAME[:PORT] without a path"
    )]
    BadUrl(String),
}

impl AllowedHosts {
    /// The loopback names, the names of `allowed` and the host of each `public_urls`.
    pub fn new(
        loopback_bound: bool,
        allowed: &[String],
        public_urls: &[String],
    ) -> Result<AllowedHosts, AllowedHostError> {
        let mut hosts = AllowedHosts {
            loopback_bound,
            ..AllowedHosts::default()
        };
        for name in allowed {
            let plain = name.trim().trim_end_matches('.').to_ascii_lowercase();
            if !is_host_name(plain.trim_start_matches('.')) {
                return Err(AllowedHostError::BadName(name.clone()));
            }
            hosts.names.push(plain);
        }
        for url in public_urls {
            let origin = origin_of_url(url).ok_or_else(|| AllowedHostError::BadUrl(url.clone()))?;
            let authority = origin.split_once("://").map_or("", |(_, a)| a);
            hosts.names.push(host_of(authority).to_string());
            hosts.public_origins.push(origin);
        }
        Ok(hosts)
    }

    /// Whether a request whose `Host` (or URI authority) is `authority` is for this
    /// server.
    pub fn allows(&self, authority: &str) -> bool {
        let host = host_of(authority);
        let host = host.as_str();
        if host.is_empty() {
            return false;
        }
        if host == "localhost" || host.ends_with(".localhost") {
            return true;
        }
        if let Some(ip) = ip_of(host) {
            return ip.is_loopback() || !self.loopback_bound;
        }
        self.names.iter().any(|name| match name.strip_prefix('.') {
            Some(parent) => {
                host.strip_suffix(name.as_str())
                    .is_some_and(|sub| !sub.is_empty())
                    || host == parent
            }
            None => host == name.as_str(),
        })
    }

    /// Whether `origin` (an `Origin` header) is the page of this server the request
    /// came from: the origin of `host` itself, or one of `--public-url`.
    pub fn same_origin(&self, origin: &str, host: &str) -> bool {
        let origin = origin.trim().to_ascii_lowercase();
        if self.public_origins.contains(&origin) {
            return true;
        }
        let Some((scheme, authority)) = origin.split_once("://") else {
            return false;
        };
        if !matches!(scheme, "http" | "https") || authority.contains(['/', '@']) {
            return false;
        }
        let host = host.trim().to_ascii_lowercase();
        without_default_port(scheme, authority) == without_default_port(scheme, &host)
            && self.allows(authority)
    }
}

/// The host of an authority (`name:port`, `[v6]:port`, `name`), lower case, without
/// its port and a trailing dot.
fn host_of(authority: &str) -> String {
    let authority = authority.trim();
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or("", |(ip, _)| ip),
        None => match authority.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => authority,
        },
    };
    host.trim_end_matches('.').to_ascii_lowercase()
}

fn ip_of(host: &str) -> Option<IpAddr> {
    host.parse().ok()
}

/// `authority` without the port its scheme implies (`:80` for http, `:443` for https).
fn without_default_port<'a>(scheme: &str, authority: &'a str) -> &'a str {
    let default = if scheme == "https" { ":443" } else { ":80" };
    authority.strip_suffix(default).unwrap_or(authority)
}

/// `scheme://authority` of an http(s) URL without a path (a trailing '/' allowed),
/// lower case, without the default port.
fn origin_of_url(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/').to_ascii_lowercase();
    let (scheme, authority) = url.split_once("://")?;
    if !matches!(scheme, "http" | "https")
        || authority.is_empty()
        || authority.contains(['/', '@', '?', '#'])
    {
        return None;
    }
    let host = host_of(authority);
    if ip_of(&host).is_none() && !is_host_name(&host) {
        return None;
    }
    Some(format!(
        "{scheme}://{}",
        without_default_port(scheme, authority)
    ))
}

/// A DNS name: labels of letters, digits and '-' (and '_', which some networks use),
/// separated by dots.
fn is_host_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(loopback: bool, allowed: &[&str], public: &[&str]) -> AllowedHosts {
        let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        AllowedHosts::new(loopback, &owned(allowed), &owned(public)).unwrap()
    }

    #[test]
    fn on_loopback_only_loopback_names_and_addresses_are_answered() {
        let h = hosts(true, &[], &[]);
        for ok in [
            "127.0.0.1:7878",
            "127.0.0.1",
            "127.1.2.3:1",
            "localhost:7878",
            "LOCALHOST",
            "localhost.:7878",
            "app.localhost:7878",
            "[::1]:7878",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for refused in [
            "rebind.evil.example:7878",
            "rebind.evil.example",
            "localhost.evil.example",
            "evil-localhost",
            "10.0.0.5:7878",
            "[fe80::1]:7878",
            "",
            ":7878",
        ] {
            assert!(!h.allows(refused), "{refused}");
        }
    }

    #[test]
    fn beyond_loopback_addresses_and_the_given_names_are_answered() {
        let h = hosts(
            false,
            &["keystorm", ".svc.cluster.local"],
            &["https://keystorm.example.com/"],
        );
        for ok in [
            "10.0.0.5:7878",
            "[2001:db8::1]:7878",
            "keystorm:7878",
            "KeyStorm",
            "keystorm.ns.svc.cluster.local:7878",
            "svc.cluster.local",
            "keystorm.example.com",
            "localhost:7878",
        ] {
            assert!(h.allows(ok), "{ok}");
        }
        for refused in [
            "rebind.evil.example:7878",
            "keystorm.evil",
            "evilsvc.cluster.local",
            "example.com",
        ] {
            assert!(!h.allows(refused), "{refused}");
        }
    }

    #[test]
    fn an_origin_is_the_servers_own_or_a_public_url() {
        let h = hosts(true, &[], &["https://ks.example.com"]);
        assert!(h.same_origin("http://127.0.0.1:7878", "127.0.0.1:7878"));
        assert!(h.same_origin("http://localhost:7878", "localhost:7878"));
        assert!(h.same_origin("http://[::1]:7878", "[::1]:7878"));
        assert!(h.same_origin("http://localhost", "localhost:80"));
        assert!(h.same_origin("https://ks.example.com", "127.0.0.1:7878"));
        assert!(!h.same_origin("http://localhost:7878", "127.0.0.1:7878"));
        assert!(!h.same_origin("http://127.0.0.1:9999", "127.0.0.1:7878"));
        assert!(!h.same_origin(
            "http://rebind.evil.example:7878",
            "rebind.evil.example:7878"
        ));
        assert!(!h.same_origin("null", "127.0.0.1:7878"));
        assert!(!h.same_origin("file://", "127.0.0.1:7878"));
        assert!(!h.same_origin("http://u@127.0.0.1:7878", "u@127.0.0.1:7878"));
    }

    #[test]
    fn bad_flags_are_refused_naming_them() {
        let bad = |allowed: &[&str], public: &[&str]| {
            let owned = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            AllowedHosts::new(false, &owned(allowed), &owned(public)).unwrap_err()
        };
        assert!(matches!(
            bad(&["http://x"], &[]),
            AllowedHostError::BadName(_)
        ));
        assert!(matches!(
            bad(&["x:7878"], &[]),
            AllowedHostError::BadName(_)
        ));
        assert!(matches!(bad(&[""], &[]), AllowedHostError::BadName(_)));
        assert!(matches!(bad(&["a..b"], &[]), AllowedHostError::BadName(_)));
        assert!(matches!(
            bad(&[], &["ks.example.com"]),
            AllowedHostError::BadUrl(_)
        ));
        assert!(matches!(
            bad(&[], &["https://ks/path"]),
            AllowedHostError::BadUrl(_)
        ));
        assert!(matches!(
            bad(&[], &["https://u:p@ks"]),
            AllowedHostError::BadUrl(_)
        ));
        assert!(bad(&["x y"], &[]).to_string().contains("--allowed-host"));
    }
}
