//! `keystorm sim`: the embedded S3 target as a process of its own, until Ctrl-C.

use crate::cli::{SimArgs, SimStorage};
use crate::{CliError, exit};

pub async fn sim(args: &SimArgs) -> Result<u8, CliError> {
    let config = keystorm_sim::SimConfig {
        storage: match args.storage {
            SimStorage::Memory => keystorm_sim::Storage::Memory,
            SimStorage::SizeOnly => keystorm_sim::Storage::SizeOnly,
        },
        credentials: args.access_key.clone().zip(args.secret_key.clone()),
        ..Default::default()
    };
    let addr = std::net::SocketAddr::new(args.bind, args.port);
    let handle = keystorm_sim::start(addr, config)
        .await
        .map_err(|e| CliError::failed(format!("cannot listen on {addr}: {e}")))?;
    // One line that scripts can wait for and parse.
    println!("keystorm sim listening on {}", handle.endpoint());
    super::run::shutdown_signal().await;
    Ok(exit::OK)
}
