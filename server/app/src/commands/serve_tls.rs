//! How `keystorm serve` speaks: HTTPS when given a certificate and key (a pair that
//! cannot be served stops it at start, naming the file), plain HTTP on loopback, and
//! plain HTTP beyond loopback only with `--insecure-http`, with a warning.

use std::net::IpAddr;
use std::sync::Arc;

use crate::CliError;
use crate::cli::ServeTlsArgs;
use keystorm_link::tls::{PairPaths, ServedPair, serve_refusal, serve_warning};

/// The pair to serve (`None`: plain HTTP), reloaded on SIGHUP from now on.
pub(super) fn prepare(
    args: &ServeTlsArgs,
    bind: IpAddr,
) -> Result<Option<Arc<ServedPair>>, CliError> {
    match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            let pair = ServedPair::load(PairPaths {
                cert: cert.clone(),
                key: key.clone(),
            })
            .map_err(|e| CliError::bad_input(e.to_string()))?;
            pair.reload_on_hangup()
                .map_err(|e| CliError::failed(format!("cannot watch for SIGHUP: {e}")))?;
            Ok(Some(pair))
        }
        _ if bind.is_loopback() => Ok(None),
        _ if args.insecure_http => {
            stderrln!("warning: {}", serve_warning(bind));
            Ok(None)
        }
        _ => Err(CliError::bad_input(serve_refusal(bind))),
    }
}
