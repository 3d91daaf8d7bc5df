//! Issue 20, item 4: the upstream closes mid-body, after N bytes of a page whose
//! `Content-Length` promised more. Everything received reaches the client before the response is
//! cut: for HTML, the rewrite of those N bytes ended as a document (`<head>` injection and all);
//! for `text/plain`, those N bytes. Many N, each on real sockets through the proxy, read by a raw
//! client until the proxy closes the connection.

use std::net::SocketAddr;

use htrewrite::{ContentType, IoSink, OnError, Rewriter, Settings};
use htrewrite_examples::proxy::{Config, Rules, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";

fn page() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/corpus/lol-html-bench/cloudflare.com.html");
    std::fs::read(path).unwrap()
}

/// An upstream that answers every connection with `content_type`, a `Content-Length` of the
/// whole page, the first `n` bytes, and a close.
async fn cutting_upstream(content_type: &'static str, n: usize) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let page = page();
    tokio::spawn(async move {
        loop {
            let (mut conn, _) = listener.accept().await.unwrap();
            let page = page.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match conn.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(k) => head.extend_from_slice(&buf[..k]),
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
                    page.len()
                );
                let _ = conn.write_all(head.as_bytes()).await;
                let _ = conn.write_all(&page[..n]).await;
                let _ = conn.shutdown().await;
            });
        }
    });
    addr
}

async fn proxy(upstream: SocketAddr) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let rules = Rules { rule_set: None, inject_head: Some(SCRIPT.to_string()) };
    tokio::spawn(serve(
        listener,
        Config { rules, ..Config::new(format!("http://{upstream}").parse().unwrap()) },
        |_| {},
    ));
    addr
}

/// The body bytes a raw client got before the connection closed (chunked decoded as far as it
/// goes; else the bytes after the head).
async fn body_received(proxy: SocketAddr) -> Vec<u8> {
    let mut s = TcpStream::connect(proxy).await.unwrap();
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {proxy}\r\nConnection: close\r\n\r\n").as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(20), s.read_to_end(&mut raw))
        .await
        .expect("closed in time");
    let at = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head") + 4;
    let head = String::from_utf8_lossy(&raw[..at]).to_ascii_lowercase();
    let mut rest = &raw[at..];
    if !head.contains("transfer-encoding: chunked") {
        return rest.to_vec();
    }
    let mut body = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap().trim(), 16).unwrap();
        let data = &rest[eol + 2..];
        if size == 0 {
            panic!("the response ended with a last chunk: the cut looks like a complete page");
        }
        body.extend_from_slice(&data[..size.min(data.len())]);
        if data.len() < size + 2 {
            break;
        }
        rest = &data[size + 2..];
    }
    body
}

fn rewrite(prefix: &[u8]) -> Vec<u8> {
    let settings = Settings::new()
        .element("head", |el| {
            el.append(SCRIPT, ContentType::Html)?;
            Ok(())
        })
        .on_error(OnError::PassThrough)
        .sniff_encoding(Some("utf-8"), "windows-1252")
        .unwrap();
    let mut rw = Rewriter::new(settings, IoSink(Vec::new())).unwrap();
    rw.write(prefix).unwrap();
    rw.end().unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_received_reaches_the_client() {
    let page = page();
    for n in [1, 700, 8_192, 30_000, 65_536, 90_001, page.len() - 1] {
        let html = proxy(cutting_upstream("text/html; charset=utf-8", n).await).await;
        let got = body_received(html).await;
        let want = rewrite(&page[..n]);
        assert!(got == want, "HTML cut at {n}: {} bytes reached the client, want {}", got.len(), want.len());
        let plain = proxy(cutting_upstream("text/plain", n).await).await;
        let got = body_received(plain).await;
        assert!(got == page[..n], "text/plain cut at {n}: {} bytes reached the client, want {n}", got.len());
    }
}
