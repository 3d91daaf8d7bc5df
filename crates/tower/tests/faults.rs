//! Faults with a raw TCP upstream on loopback: malformed chunked framing, and a 50 MB
//! page streamed through the layer in bounded memory (its own test binary, so the
//! process's peak RSS is this test's).

use std::net::SocketAddr;

use bytes::Bytes;
use htrewrite::{ContentType, Sendable, Settings};
use htrewrite_tower::{ErrorKind, HtmlRewriteLayer};
use http::{Request, request, response};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tower::{ServiceBuilder, ServiceExt};

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";

fn factory(_: &request::Parts, _: &response::Parts) -> Option<Settings<'static, Sendable>> {
    Some(Settings::new_send().element("head", |el| {
        el.append(SCRIPT, ContentType::Html)?;
        Ok(())
    }))
}

/// A one-connection upstream that reads the request head and then runs `respond`.
async fn raw_upstream<F, Fut>(respond: F) -> SocketAddr
where
    F: FnOnce(tokio::net::TcpStream) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut conn, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = conn.read(&mut buf).await.unwrap();
            head.extend_from_slice(&buf[..n]);
        }
        respond(conn).await;
    });
    addr
}

fn get(addr: SocketAddr) -> Request<Empty<Bytes>> {
    Request::get(format!("http://{addr}/")).body(Empty::new()).unwrap()
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_chunked_framing_is_a_body_error() {
    let addr = raw_upstream(|mut conn| async move {
        let res = b"HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n\
                    20\r\n<html><head></head><body>hello..\r\nZZZ not a chunk size\r\n";
        conn.write_all(res).await.unwrap();
        let _ = conn.shutdown().await;
    })
    .await;
    let client = Client::builder(TokioExecutor::new()).build_http();
    let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory)).service(client);
    let res = service.oneshot(get(addr)).await.unwrap();
    let err = res.into_body().collect().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Body, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_megabytes_in_bounded_memory() {
    const CHUNK: usize = 64 * 1024;
    const CHUNKS: usize = 800; // 52.4 MB
    let addr = raw_upstream(|mut conn| async move {
        conn.write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n",
        )
        .await
        .unwrap();
        let head = b"<html><head></head><body>";
        conn.write_all(format!("{:x}\r\n", head.len()).as_bytes()).await.unwrap();
        conn.write_all(head).await.unwrap();
        conn.write_all(b"\r\n").await.unwrap();
        let chunk = format!("{:x}\r\n<p>{}\r\n", CHUNK, "x".repeat(CHUNK - 3));
        for _ in 0..CHUNKS {
            if conn.write_all(chunk.as_bytes()).await.is_err() {
                return;
            }
        }
        let _ = conn.write_all(b"0\r\n\r\n").await;
    })
    .await;
    let before = peak_rss_kb();
    let client = Client::builder(TokioExecutor::new()).build_http();
    let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory)).service(client);
    let mut body = service.oneshot(get(addr)).await.unwrap().into_body();
    let (mut total, mut injected) = (0usize, false);
    while let Some(frame) = body.frame().await {
        let data = frame.unwrap().into_data().unwrap();
        injected |= data.windows(SCRIPT.len()).any(|w| w == SCRIPT.as_bytes());
        total += data.len();
    }
    assert!(injected);
    assert_eq!(total, 25 + CHUNK * CHUNKS + SCRIPT.len());
    let grown = peak_rss_kb().saturating_sub(before);
    eprintln!("peak RSS grew by {grown} kB while streaming {total} bytes");
    assert!(grown < 16 * 1024, "peak RSS grew by {grown} kB: the body was collected?");
}
