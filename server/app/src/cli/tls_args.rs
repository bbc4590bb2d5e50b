//! The TLS flags of `serve` (its certificate and key) and of the clients of a
//! controller (`agent`, `run --controller`: the CA to trust).

use std::path::PathBuf;

use keystorm_link::client::ClientTls;

/// How `keystorm serve` speaks: HTTPS with a certificate and key, or plain HTTP.
#[derive(Debug, Default, clap::Args)]
pub struct ServeTlsArgs {
    /// Serve HTTPS with this certificate (PEM; the chain, the server's own first).
    /// Read again, with --tls-key, on SIGHUP.
    #[arg(
        long,
        value_name = "PEM",
        env = "KEYSTORM_TLS_CERT",
        requires = "tls_key",
        hide_env_values = true
    )]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM).
    #[arg(
        long,
        value_name = "PEM",
        env = "KEYSTORM_TLS_KEY",
        requires = "tls_cert",
        hide_env_values = true
    )]
    pub tls_key: Option<PathBuf>,

    /// Serve plain HTTP beyond loopback (--bind other than 127.0.0.1 or ::1) without
    /// --tls-cert: the token and all traffic then cross the network in clear.
    #[arg(long, conflicts_with = "tls_cert")]
    pub insecure_http: bool,
}

/// How a client reaches a controller over TLS.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct LinkTlsArgs {
    /// Trust only the CA certificate(s) in this PEM file for an https:// controller
    /// (its self-signed certificate, or the CA that signed it), not the system's.
    #[arg(
        long,
        value_name = "PEM",
        env = "KEYSTORM_CA_FILE",
        requires = "controller",
        hide_env_values = true
    )]
    pub ca_file: Option<PathBuf>,

    /// Dial a controller beyond loopback over plain http://: the token, workloads and
    /// results then cross the network in clear.
    #[arg(long, requires = "controller")]
    pub insecure_http: bool,
}

impl LinkTlsArgs {
    /// The trust these flags give the link's client.
    pub fn client_tls(&self) -> ClientTls {
        ClientTls {
            ca_file: self.ca_file.clone(),
            insecure_http: self.insecure_http,
        }
    }
}
