//! A 50 MB page through the reverse proxy on loopback, in bounded memory and byte-exact.
//! Its own test binary, so the process's peak RSS (upstream, proxy and client together)
//! is this test's.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;

use axum::Router;
use axum::body::Body as AxumBody;
use axum::routing::get;
use bytes::{Buf, Bytes};
use htrewrite_examples::proxy::{Config, Rules, serve};
use http::header::CONTENT_TYPE;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";
const HEAD: &str = "<!DOCTYPE html><html><head><title>big</title></head><body>";
/// The page's body: a real page (244 KB), this many times.
const REPEATS: usize = 205;

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// An upstream streaming `HEAD` and then `page` `REPEATS` times (chunked; the chunks share
/// one buffer, so the upstream holds one copy).
async fn upstream(page: Bytes) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/big",
        get(move || {
            let page = page.clone();
            async move {
                let parts = std::iter::once(Bytes::from_static(HEAD.as_bytes()))
                    .chain(std::iter::repeat_n(page, REPEATS))
                    .map(Ok::<_, std::io::Error>);
                ([(CONTENT_TYPE, "text/html; charset=utf-8")], AxumBody::from_stream(futures_util::stream::iter(parts)))
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// Compares `got` with the front of `expected`, consuming it; the offset of the first
/// difference on failure.
fn take_expected(expected: &mut VecDeque<Bytes>, mut got: &[u8], offset: &mut usize) -> Result<(), usize> {
    while !got.is_empty() {
        let Some(front) = expected.front_mut() else { return Err(*offset) };
        let n = front.len().min(got.len());
        if let Some(i) = front[..n].iter().zip(got).position(|(a, b)| a != b) {
            return Err(*offset + i);
        }
        front.advance(n);
        got = &got[n..];
        *offset += n;
        if front.is_empty() {
            expected.pop_front();
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_megabyte_page_through_the_proxy_in_bounded_memory() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/corpus/readability/wikipedia.html");
    let page = Bytes::from(std::fs::read(path).unwrap());
    let before = peak_rss_kb();

    let up = upstream(page.clone()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let px = listener.local_addr().unwrap();
    let rules = Rules { rule_set: None, inject_head: Some(SCRIPT.to_string()) };
    let config = Config { rules, ..Config::new(format!("http://{up}").parse().unwrap()) };
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(serve(listener, config, |s| tx.send(s).unwrap()));
    let stats = rx.await.unwrap();

    // What the client must get: the injection at the end of <head>, every other byte as sent.
    let at = HEAD.find("</head>").unwrap();
    let mut expected: VecDeque<Bytes> =
        [Bytes::from(format!("{}{SCRIPT}{}", &HEAD[..at], &HEAD[at..]))].into_iter().collect();
    expected.extend(std::iter::repeat_n(page.clone(), REPEATS));
    let want_len = HEAD.len() + SCRIPT.len() + page.len() * REPEATS;

    let client = Client::builder(TokioExecutor::new()).build_http();
    let res = client.request(http::Request::get(format!("http://{px}/big")).body(Empty::<Bytes>::new()).unwrap());
    let mut body = res.await.unwrap().into_body();
    let mut offset = 0;
    while let Some(frame) = body.frame().await {
        let data = frame.unwrap().into_data().unwrap();
        if let Err(at) = take_expected(&mut expected, &data, &mut offset) {
            panic!("the proxied page differs from the expected one at byte {at}");
        }
    }
    assert!(expected.is_empty(), "the page ended early, after {offset} of {want_len} bytes");
    assert_eq!(offset, want_len);
    assert_eq!(stats.rewritten(), 1);
    let grown = peak_rss_kb().saturating_sub(before);
    eprintln!("peak RSS grew by {grown} kB while {offset} bytes went through the proxy");
    assert!(grown < 16 * 1024, "peak RSS grew by {grown} kB: the body was collected?");
}
