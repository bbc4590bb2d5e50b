//! Ctrl-C and SIGTERM for the commands that run until stopped: the first stops
//! cleanly, the second leaves at once.

use tokio_util::sync::CancellationToken;

use keystorm_console::exit;

/// First Ctrl-C (or SIGTERM): say what stopping does, and stop cleanly. Second: leave
/// at once.
pub(super) async fn watch_interrupts(
    cancel: CancellationToken,
    first: impl std::future::Future<Output = ()>,
    what: &str,
) {
    first.await;
    stderrln!("stopping: {what} (Ctrl-C again to quit now)");
    cancel.cancel();
    shutdown_signal().await;
    std::process::exit(i32::from(exit::INTERRUPTED));
}

/// Ctrl-C or SIGTERM. The handlers are in place when this returns, not when the future
/// is first polled: a signal that comes right after a server said it is ready (scripts
/// wait for that line, then stop it) must not meet the default action and kill it.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            match (interrupt, terminate) {
                (Ok(mut interrupt), Ok(mut terminate)) => {
                    tokio::select! {
                        _ = interrupt.recv() => {}
                        _ = terminate.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
