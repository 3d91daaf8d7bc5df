//! The reverse proxy against hostile clients (issue 20, items 2 and 3), on loopback sockets:
//!
//! - `accept_errors_do_not_end_the_server`: with the process out of file descriptors (its soft
//!   limit lowered, `rlimit`), `accept` fails with EMFILE; the proxy logs, waits and retries, and
//!   serves again once descriptors are free (before, `serve` returned and the listener closed).
//! - `slow_clients_are_timed_out_and_capped`: half-sent requests (slow loris) are closed after
//!   `client_timeout`; with `max_connections` of them open, a real request waits for a free slot
//!   and is served.
//! - `range_requests_get_the_whole_rewritten_page`: `Range` and `If-Range` never reach the
//!   upstream; the client gets a 200 with the whole page, rewritten.
//!
//! One test binary of its own: the first test changes the process's descriptor limit, so the
//! tests run one after the other (`TESTS` below, from one `#[test]`).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::response::IntoResponse;
use axum::routing::get;
use htrewrite_examples::proxy::{Config, Rules, serve};
use http::header::CONTENT_TYPE;
use http::{HeaderMap, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";
const PAGE: &str = "<html><head><title>t</title></head><body><p>hello</p></body></html>";

/// An upstream serving [`PAGE`]; it answers a `Range` request with a 206 of the first bytes,
/// and records the `Range`/`If-Range` headers it saw.
async fn upstream(seen: Arc<Mutex<Vec<String>>>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/",
        get(move |headers: HeaderMap| {
            let seen = Arc::clone(&seen);
            async move {
                for name in ["range", "if-range"] {
                    if let Some(v) = headers.get(name) {
                        seen.lock().unwrap().push(format!("{name}: {}", v.to_str().unwrap_or("?")));
                    }
                }
                if headers.contains_key("range") {
                    (
                        StatusCode::PARTIAL_CONTENT,
                        [(CONTENT_TYPE, "text/html"), (http::header::CONTENT_RANGE, "bytes 0-5/68")],
                        PAGE[..6].to_string(),
                    )
                        .into_response()
                } else {
                    ([(CONTENT_TYPE, "text/html")], PAGE).into_response()
                }
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn proxy(upstream: SocketAddr, client_timeout: Duration, max_connections: usize) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let rules = Rules { rule_set: None, inject_head: Some(SCRIPT.to_string()) };
    let config =
        Config { rules, client_timeout, max_connections, ..Config::new(format!("http://{upstream}").parse().unwrap()) };
    tokio::spawn(serve(listener, config, |_| {}));
    addr
}

/// One request on a new connection (`Connection: close`); the raw response.
async fn get_raw(proxy: SocketAddr, extra_headers: &str) -> std::io::Result<String> {
    let mut s = TcpStream::connect(proxy).await?;
    s.write_all(format!("GET / HTTP/1.1\r\nHost: {proxy}\r\n{extra_headers}Connection: close\r\n\r\n").as_bytes())
        .await?;
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut out)).await??;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn expect_rewritten(response: &str) {
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains(&format!("<title>t</title>{SCRIPT}</head>")), "not rewritten: {response}");
    assert!(response.contains("<p>hello</p>"), "not the whole page: {response}");
}

/// The number of descriptors this process has open.
fn open_descriptors() -> u64 {
    std::fs::read_dir("/proc/self/fd").map(|d| d.count() as u64).unwrap_or(64)
}

async fn accept_errors_do_not_end_the_server() {
    let up = upstream(Arc::default()).await;
    let px = proxy(up, Duration::from_millis(500), 1024).await;
    expect_rewritten(&get_raw(px, "").await.unwrap());
    let (soft, hard) = rlimit::Resource::NOFILE.get().unwrap();
    // A few descriptors to spare, then fill them with half-sent requests: the proxy's own
    // `accept` runs out (EMFILE) while those are open.
    rlimit::Resource::NOFILE.set(open_descriptors() + 12, hard).unwrap();
    let mut held = Vec::new();
    for _ in 0..64 {
        match TcpStream::connect(px).await {
            Ok(mut s) => {
                let _ = s.write_all(b"GET / HTTP/1.1\r\n").await;
                held.push(s);
            }
            Err(_) => break,
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(held);
    rlimit::Resource::NOFILE.set(soft, hard).unwrap();
    // The proxy retries `accept` (at most a second apart) and times the half-sent requests out.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match get_raw(px, "").await {
            Ok(r) if r.starts_with("HTTP/1.1 200") => {
                expect_rewritten(&r);
                break;
            }
            other => assert!(Instant::now() < deadline, "the proxy stopped serving: {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn slow_clients_are_timed_out_and_capped() {
    let up = upstream(Arc::default()).await;
    let timeout = Duration::from_millis(300);
    let px = proxy(up, timeout, 4).await;
    // Eight slow-loris clients: four take every slot, four wait in the backlog.
    let mut loris = Vec::new();
    for _ in 0..8 {
        let mut s = TcpStream::connect(px).await.unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
        loris.push(s);
    }
    let started = Instant::now();
    let response = get_raw(px, "").await.unwrap();
    expect_rewritten(&response);
    assert!(started.elapsed() < Duration::from_secs(5), "served after {:?}", started.elapsed());
    // Each slow client was closed by the proxy (end of stream or reset), none kept open.
    for mut s in loris {
        let mut buf = [0u8; 256];
        match tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await {
            Ok(Ok(_)) | Ok(Err(_)) => {}
            Err(_) => panic!("a half-sent request was kept open beyond {timeout:?}"),
        }
    }
}

async fn range_requests_get_the_whole_rewritten_page() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let up = upstream(Arc::clone(&seen)).await;
    let px = proxy(up, Duration::from_secs(30), 1024).await;
    for headers in ["Range: bytes=0-5\r\n", "Range: bytes=10-\r\nIf-Range: \"etag\"\r\n", "Range: bytes=0-\r\n"] {
        let response = get_raw(px, headers).await.unwrap();
        expect_rewritten(&response);
        assert!(!response.to_ascii_lowercase().contains("content-range"), "{response}");
    }
    assert!(seen.lock().unwrap().is_empty(), "the upstream saw {:?}", seen.lock().unwrap());
}

#[test]
fn hostile_clients() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        accept_errors_do_not_end_the_server().await;
        slow_clients_are_timed_out_and_capped().await;
        range_requests_get_the_whole_rewritten_page().await;
    });
}
