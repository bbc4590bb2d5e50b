//! The pair the controller serves, read again from its files on SIGHUP: connections
//! made after that get the new pair (those open keep theirs); a new pair that does not
//! load leaves the one in use, and says why on stderr.

use std::sync::{Arc, RwLock};

use rustls::ServerConfig;

use super::pair::{PairError, PairPaths, load_pair};

/// The configuration of a pair just read, its warning said.
fn loaded((config, warning): (Arc<ServerConfig>, Option<String>)) -> Arc<ServerConfig> {
    if let Some(warning) = warning {
        stderrln!("warning: {warning}");
    }
    config
}

/// The certificate and key being served, and where they are read from.
pub struct ServedPair {
    paths: PairPaths,
    current: RwLock<Arc<ServerConfig>>,
}

impl ServedPair {
    /// Reads the pair at `paths`; an error names the file and what is wrong, and what
    /// clients will hold against the certificate is said on stderr.
    pub fn load(paths: PairPaths) -> Result<Arc<ServedPair>, PairError> {
        let config = loaded(load_pair(&paths)?);
        Ok(Arc::new(ServedPair {
            paths,
            current: RwLock::new(config),
        }))
    }

    /// The configuration a new connection is served with.
    pub fn current(&self) -> Arc<ServerConfig> {
        self.current
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Reads the files again; on error the pair in use stays.
    pub fn reload(&self) -> Result<(), PairError> {
        let config = loaded(load_pair(&self.paths)?);
        *self.current.write().unwrap_or_else(|p| p.into_inner()) = config;
        Ok(())
    }

    /// Reloads the pair on every SIGHUP from now on, saying on stderr what came of it.
    /// The handler is in place when this returns (a SIGHUP right after the server says
    /// it is ready must not meet the default action, which ends the process).
    pub fn reload_on_hangup(self: &Arc<Self>) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let mut hangups = signal(SignalKind::hangup())?;
            let pair = Arc::clone(self);
            keystorm_console::output::spawn(async move {
                while hangups.recv().await.is_some() {
                    match pair.reload() {
                        Ok(()) => stderrln!(
                            "SIGHUP: serving the certificate in {} now",
                            pair.paths.cert.display()
                        ),
                        Err(e) => stderrln!("SIGHUP: keeping the certificate in use: {e}"),
                    }
                }
            });
        }
        Ok(())
    }
}
