//! Plain HTTP stays on this machine unless asked for: beyond loopback the token, the
//! workloads and the results would cross the network in clear. `serve` refuses to
//! listen there without TLS, and the clients of a controller refuse to dial one there
//! over http://, before any connection is made; `--insecure-http` allows both, with a
//! warning.

use std::net::IpAddr;

/// Makes a self-signed certificate and key for a controller reached as `keystorm`,
/// `localhost` or 127.0.0.1 (also the CA its clients are given with --ca-file).
pub const SELF_SIGNED: &str = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
     -nodes -days 365 -subj /CN=keystorm -keyout tls.key -out tls.crt -addext \
     subjectAltName=DNS:keystorm,DNS:localhost,IP:127.0.0.1 -addext \
     basicConstraints=critical,CA:FALSE";

/// Whether `host` (as in a URL: a name, an address, or an IPv6 address in brackets)
/// is this machine's loopback. Names are not looked up: only `localhost` counts.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Why `serve --bind ADDR` without TLS is refused beyond loopback, and what to do.
pub fn serve_refusal(bind: IpAddr) -> String {
    format!(
        "binding to {bind} without TLS would send the token and all traffic in clear: give \
         --tls-cert and --tls-key (a self-signed pair: `{SELF_SIGNED}`), or --insecure-http \
         on a network you trust"
    )
}

/// The warning of a server serving plain HTTP beyond loopback.
pub fn serve_warning(bind: IpAddr) -> String {
    format!(
        "serving plain HTTP on {bind} (--insecure-http): the token and all traffic cross the \
         network in clear"
    )
}

/// Why dialling `url` (a controller beyond loopback) over plain HTTP is refused.
pub fn client_refusal(url: &str) -> String {
    let https = url.replacen("http://", "https://", 1);
    format!(
        "controller {url}: plain http:// beyond this machine would send the token and the \
         workloads in clear: start the controller with --tls-cert and --tls-key and use \
         {https} (with --ca-file if its certificate is self-signed), or give --insecure-http \
         on a network you trust"
    )
}

/// The warning of a client of a controller beyond loopback over plain HTTP, also
/// recorded in the runs it makes.
pub fn client_warning(url: &str) -> String {
    format!(
        "the link to the controller {url} is not encrypted (--insecure-http): the token, \
         workloads and results cross the network in clear"
    )
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn loopback_is_localhost_and_the_loopback_addresses_only() {
        for host in [
            "localhost",
            "LocalHost",
            "127.0.0.1",
            "127.3.2.1",
            "[::1]",
            "[::ffff:127.0.0.1]",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "keystorm",
            "192.0.2.1",
            "0.0.0.0",
            "[::]",
            "[fd00::2]",
            "localhost.example",
            "",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
