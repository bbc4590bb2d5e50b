//! What an endpoint URL may be, checked the same way wherever one comes in — a
//! workload's `target.endpoint(s)` and RGW admin endpoint, `--endpoint` of every command,
//! the API's `endpoint`, an agent's own endpoint, `serve --default-endpoint`, a
//! controller's URL: `http(s)://host[:port]`, and never with a `user:password@` in it.
//! keystorm signs with keys it takes from `credentials`, the environment or a profile;
//! a password in a URL would be stored with the run, shown in the UI and logged. The
//! refusal never repeats the password. Scheme and host are case-insensitive: a URL is
//! kept in lower case, so `HTTP://RGW:7480/` and `http://rgw:7480` are one endpoint,
//! and a list that names one endpoint twice is refused wherever it comes in.

/// Why an endpoint URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointUrlError {
    #[error("endpoint {0:?} must start with http:// or https://")]
    Scheme(String),
    #[error("endpoint {0:?} must be scheme://host[:port], without a path or query")]
    Shape(String),
    #[error("endpoint {url:?} has a bad port {port:?}")]
    Port { url: String, port: String },
    #[error("{}", user_info_message(.0))]
    UserInfo(String),
    #[error("endpoint {0:?} is listed twice")]
    Twice(String),
}

/// Where keys go instead of a URL: the one message every refusal of user info gives.
pub const KEYS_GO_ELSEWHERE: &str = "keystorm never takes keys from a URL: give them in the \
     workload's `credentials` (`env:` or `profile:`), in the environment \
     (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or in an AWS profile";

fn user_info_message(shown: &str) -> String {
    format!("endpoint {shown:?} carries credentials (`user:password@`): {KEYS_GO_ELSEWHERE}")
}

/// `url` checked: `http(s)://host[:port]` without user info, in lower case and without
/// a trailing '/'.
pub fn check_endpoint_url(url: &str) -> Result<String, EndpointUrlError> {
    let given = url.trim().trim_end_matches('/');
    refuse_user_info(given)?;
    let url = given.to_ascii_lowercase();
    let url = url.as_str();
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(refuse_scheme(given));
    };
    if !matches!(scheme, "http" | "https") {
        return Err(refuse_scheme(given));
    }
    if rest.is_empty() || rest.contains(['/', '?', '#', ' ']) {
        return Err(EndpointUrlError::Shape(url.to_string()));
    }
    if let Some((_, port)) = rest.rsplit_once(':')
        && !rest.ends_with(']')
        && port.parse::<u16>().is_err()
    {
        return Err(EndpointUrlError::Port {
            url: url.to_string(),
            port: port.to_string(),
        });
    }
    Ok(url.to_string())
}

/// Checks each URL of a comma-separated list (`--endpoint a,b`), blanks aside, and that
/// none is named twice.
pub fn check_endpoint_urls(list: &str) -> Result<(), EndpointUrlError> {
    endpoint_urls(list).map(drop)
}

/// The URLs of a comma-separated list (`--endpoint a,b`), blanks aside, each checked
/// and kept as [`check_endpoint_url`] keeps it; one named twice is refused.
pub fn endpoint_urls(list: &str) -> Result<Vec<String>, EndpointUrlError> {
    let mut urls: Vec<String> = Vec::new();
    for given in list.split(',').map(str::trim).filter(|u| !u.is_empty()) {
        let url = check_endpoint_url(given)?;
        if urls.contains(&url) {
            return Err(EndpointUrlError::Twice(url));
        }
        urls.push(url);
    }
    Ok(urls)
}

/// Refuses a URL (of any form: with a path, a controller's) whose authority holds
/// `user[:password]@`.
pub fn refuse_user_info(url: &str) -> Result<(), EndpointUrlError> {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, url),
    };
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let Some(at) = authority.rfind('@') else {
        return Ok(());
    };
    let host_on = &rest[at + 1..];
    Err(EndpointUrlError::UserInfo(match scheme {
        Some(scheme) => format!("{scheme}://<redacted>@{host_on}"),
        None => format!("<redacted>@{host_on}"),
    }))
}

/// A scheme refusal that does not repeat user info a malformed URL may hold.
fn refuse_scheme(url: &str) -> EndpointUrlError {
    match refuse_user_info(url) {
        Err(e) => e,
        Ok(()) => EndpointUrlError::Scheme(url.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_endpoints_pass_trimmed() {
        for (given, kept) in [
            ("http://127.0.0.1:7480", "http://127.0.0.1:7480"),
            ("https://rgw.example.com/", "https://rgw.example.com"),
            ("http://[::1]:9000", "http://[::1]:9000"),
        ] {
            assert_eq!(check_endpoint_url(given).as_deref(), Ok(kept));
        }
    }

    #[test]
    fn user_info_is_refused_without_repeating_it() {
        for url in [
            "http://u:secretpw@127.0.0.1:9000",
            "https://secretpw@rgw:7480/",
            "http://u:secretpw@host/path",
            "ftp://u:secretpw@host",
            "u:secretpw@host:9000",
        ] {
            let e = check_endpoint_url(url).unwrap_err();
            let said = e.to_string();
            assert!(matches!(e, EndpointUrlError::UserInfo(_)), "{url}: {said}");
            assert!(!said.contains("secretpw"), "{said}");
            assert!(said.contains("AWS_ACCESS_KEY_ID"), "{said}");
        }
        assert!(refuse_user_info("https://u:p@controller:7878").is_err());
        assert!(matches!(
            check_endpoint_urls("http://a:1, http://u:secretpw@b:2"),
            Err(EndpointUrlError::UserInfo(_))
        ));
        assert_eq!(check_endpoint_urls("http://a:1, ,http://b:2"), Ok(()));
        assert!(refuse_user_info("https://controller:7878/x?a=b@c").is_ok());
    }

    #[test]
    fn scheme_and_host_are_kept_in_lower_case() {
        for given in [
            "HTTP://127.0.0.1:9000",
            "Http://127.0.0.1:9000/",
            " http://127.0.0.1:9000 ",
        ] {
            assert_eq!(
                check_endpoint_url(given).as_deref(),
                Ok("http://127.0.0.1:9000")
            );
        }
        assert_eq!(
            check_endpoint_url("HTTPS://RGW.Example.COM:443").as_deref(),
            Ok("https://rgw.example.com:443")
        );
        assert!(matches!(
            check_endpoint_url("FTP://rgw:21"),
            Err(EndpointUrlError::Scheme(u)) if u == "FTP://rgw:21"
        ));
        let e = check_endpoint_url("HTTP://u:secretpw@rgw:7480").unwrap_err();
        assert!(matches!(e, EndpointUrlError::UserInfo(_)));
        assert!(!e.to_string().contains("secretpw"), "{e}");
    }

    #[test]
    fn a_list_naming_one_endpoint_twice_is_refused() {
        for list in [
            "http://a:1,http://a:1/",
            "http://a:1, http://b:2, HTTP://A:1",
            "http://a:1/,http://a:1",
        ] {
            assert_eq!(
                check_endpoint_urls(list),
                Err(EndpointUrlError::Twice("http://a:1".to_string())),
                "{list}"
            );
        }
        assert_eq!(
            endpoint_urls("HTTP://a:1/, ,http://b:2").unwrap(),
            ["http://a:1", "http://b:2"]
        );
        assert_eq!(
            EndpointUrlError::Twice("http://a:1".into()).to_string(),
            "endpoint \"http://a:1\" is listed twice"
        );
    }

    #[test]
    fn other_shapes_are_refused_with_what_is_wrong() {
        assert!(matches!(
            check_endpoint_url("rgw:7480"),
            Err(EndpointUrlError::Scheme(_))
        ));
        assert!(matches!(
            check_endpoint_url("http://rgw:7480/bucket"),
            Err(EndpointUrlError::Shape(_))
        ));
        assert!(matches!(
            check_endpoint_url("http://rgw:port"),
            Err(EndpointUrlError::Port { .. })
        ));
    }
}
