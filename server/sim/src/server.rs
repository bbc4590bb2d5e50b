//! The accept loop of one port: one task per connection, HTTP/1.1 keep-alive,
//! TCP_NODELAY, and a stop on a token that closes the listener and then every open
//! connection before it returns. Every request goes through `handlers::handle`.

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::state::Port;

pub(crate) async fn serve(listener: TcpListener, port: Arc<Port>, stop: CancellationToken) {
    // Every connection task holds a sender: once all are dropped, they have ended.
    let (open, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = stop.cancelled() => break,
            a = listener.accept() => a,
        };
        let Ok((stream, _)) = accepted else {
            // Out of file descriptors and the like: keep serving the open connections.
            tokio::task::yield_now().await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        let port = port.clone();
        let stop = stop.clone();
        let open = open.clone();
        tokio::spawn(async move {
            let _open = open;
            let service = service_fn(move |req| {
                let port = port.clone();
                async move { crate::handlers::handle(&port, req).await }
            });
            let conn = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                biased;
                _ = stop.cancelled() => {}
                _ = conn => {}
            }
        });
    }
    // New connections are refused from here on; then the open ones are dropped.
    drop(listener);
    drop(open);
    let _ = all_closed.recv().await;
}
