//! Why an agent gave up: the controller refused it, or it cannot be reached as asked.
//! The link's error is kept as it came, for the command line to show.

use keystorm_link::client::LinkError;

/// Why an agent gave up.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("the controller refused this agent: {0}")]
    Refused(LinkError),
    /// It cannot be reached as asked (its certificate is not trusted).
    #[error("{0}")]
    Link(LinkError),
}
