//! The accept loop: one task per connection, HTTP/1.1 keep-alive, TCP_NODELAY, and
//! shutdown on a token. Every request goes through `handlers::handle`.

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::state::State;

pub(crate) async fn serve(listener: TcpListener, state: Arc<State>, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.cancelled() => return,
        };
        let Ok((stream, _)) = accepted else {
            // Out of file descriptors and the like: keep serving the open connections.
            tokio::task::yield_now().await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let state = state.clone();
                async move { crate::handlers::handle(&state, req).await }
            });
            let conn = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = conn => {}
                _ = stop.cancelled() => {}
            }
        });
    }
}
