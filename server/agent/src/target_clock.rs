//! The target's clock against this agent's, from the `Date` header of one plain request
//! to its endpoint (every answer carries one, a 403 too). HTTP dates are whole seconds,
//! so the skew is known to about a second: enough to see a store whose clock is off by
//! minutes, which breaks request signing long before it blurs the intervals.

use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// The target's `Date` minus this agent's clock (ms); `None` if the endpoint is not
/// plain http, does not answer within a few seconds, or sends no date.
pub async fn target_skew_ms(endpoint: &str) -> Option<i64> {
    if !endpoint.starts_with("http://") {
        return None;
    }
    let uri: hyper::Uri = format!("{}/", endpoint.trim_end_matches('/'))
        .parse()
        .ok()?;
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let request = hyper::Request::head(uri).body(Empty::new()).ok()?;
    let sent = SystemTime::now();
    let response = tokio::time::timeout(Duration::from_secs(5), client.request(request))
        .await
        .ok()?
        .ok()?;
    let received = SystemTime::now();
    let date = response.headers().get(hyper::header::DATE)?.to_str().ok()?;
    let target = httpdate::parse_http_date(date).ok()?;
    // The target read its clock about half way through, and truncated it to the second.
    let middle = sent + received.duration_since(sent).unwrap_or_default() / 2;
    let ms = |t: SystemTime| {
        t.duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64)
    };
    Some(ms(target) + 500 - ms(middle))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A server on loopback shares this clock: the skew is within the second an HTTP
    /// date rounds to.
    #[tokio::test]
    async fn a_target_on_this_host_is_within_a_second() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
            let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
            let reply =
                format!("HTTP/1.1 403 Forbidden\r\nDate: {date}\r\nContent-Length: 0\r\n\r\n");
            socket.write_all(reply.as_bytes()).await.unwrap();
        });
        let skew = target_skew_ms(&format!("http://{addr}")).await.unwrap();
        assert!((119_000..=121_000).contains(&skew), "{skew}");
        assert_eq!(target_skew_ms("https://127.0.0.1:1").await, None);
    }
}
