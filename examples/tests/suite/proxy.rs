//! The reverse proxy example end to end on loopback: an axum upstream, the proxy
//! (`htrewrite_examples::proxy::serve`) and the hyper-util client.

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body as AxumBody;
use axum::extract::Path;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use bytes::Bytes;
use htrewrite_cli::rules::RuleSet;
use htrewrite_examples::proxy::{Config, DEFAULT_UPSTREAM_TIMEOUT, Rules, serve};
use htrewrite_tower::Stats;
use http::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, HOST, LOCATION};
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/corpus")
}

async fn page(Path(path): Path<String>) -> Response {
    let bytes = std::fs::read(corpus().join(path)).unwrap();
    ([(CONTENT_TYPE, "text/html; charset=utf-8")], bytes).into_response()
}

async fn upstream(gzip: bool) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let origin = format!("http://{addr}");
    let links =
        format!("<html><head></head><body><a href=\"{origin}/x?y#z\">in</a> <a href=\"http://other.example/\">out</a>");
    let location = format!("{origin}/moved-here");
    let app = Router::new()
        .route("/page/{*path}", get(page))
        .route("/links", get(move || async move { ([(CONTENT_TYPE, "text/html")], links) }))
        .route("/redirect", get(move || async move { Redirect::temporary(&location) }))
        .route("/host", get(|headers: http::HeaderMap| async move { format!("{:?}", headers.get(HOST)) }))
        .route("/rules", get(|| async { ([(CONTENT_TYPE, "text/html")], "<img src=a.png><p class=ad>ad</p>") }))
        .route(
            "/partial",
            get(|| async {
                (
                    StatusCode::PARTIAL_CONTENT,
                    [(CONTENT_TYPE, "text/html"), (http::header::CONTENT_RANGE, "bytes 0-5/9")],
                    "<head>",
                )
            }),
        )
        .route(
            "/big",
            get(|| async {
                // 8 MiB of HTML in 64 KiB chunks, streamed.
                let chunk = Bytes::from("<p>".to_string() + &"x".repeat(64 * 1024 - 3));
                let head =
                    futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from("<html><head></head><body>"))]);
                let rest = futures_util::stream::iter((0..128).map(move |_| Ok(chunk.clone())));
                (
                    [(CONTENT_TYPE, "text/html; charset=utf-8")],
                    AxumBody::from_stream(futures_util::StreamExt::chain(head, rest)),
                )
            }),
        );
    let app = if gzip { app.layer(tower_http::compression::CompressionLayer::new()) } else { app };
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn proxy(upstream: SocketAddr, rules: Rules) -> (SocketAddr, Stats) {
    proxy_with_timeout(upstream, rules, DEFAULT_UPSTREAM_TIMEOUT).await
}

async fn proxy_with_timeout(upstream: SocketAddr, rules: Rules, upstream_timeout: Duration) -> (SocketAddr, Stats) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = Config {
        rules,
        upstream_timeout,
        public_url: Some(format!("http://{addr}/")),
        ..Config::new(format!("http://{upstream}").parse().unwrap())
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(serve(listener, config, |s| tx.send(s).unwrap()));
    (addr, rx.await.unwrap())
}

fn inject() -> Rules {
    Rules { rule_set: None, inject_head: Some(SCRIPT.to_string()) }
}

fn client() -> Client<HttpConnector, Empty<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

async fn fetch(method: Method, addr: SocketAddr, path: &str, gzip: bool) -> (http::response::Parts, Bytes) {
    let mut req = Request::builder().method(method).uri(format!("http://{addr}{path}"));
    if gzip {
        req = req.header(ACCEPT_ENCODING, "gzip");
    }
    let res = client().request(req.body(Empty::new()).unwrap()).await.unwrap();
    let (parts, body) = res.into_parts();
    (parts, body.collect().await.unwrap().to_bytes())
}

fn without_script(body: &[u8]) -> Option<Vec<u8>> {
    let at = body.windows(SCRIPT.len()).position(|w| w == SCRIPT.as_bytes())?;
    Some([&body[..at], &body[at + SCRIPT.len()..]].concat())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_through_the_proxy_identity_and_gzip() {
    for gzip in [false, true] {
        let up = upstream(gzip).await;
        let (px, stats) = proxy(up, inject()).await;
        for name in ["lol-html-bench/cloudflare.com.html", "readability/wikipedia.html", "html5ever-bench/lipsum.html"]
        {
            let original = std::fs::read(corpus().join(name)).unwrap();
            let (parts, body) = fetch(Method::GET, px, &format!("/page/{name}"), gzip).await;
            assert_eq!(parts.status, StatusCode::OK);
            assert!(parts.headers.get(CONTENT_LENGTH).is_none(), "{name}");
            let body = if gzip {
                assert_eq!(parts.headers.get(CONTENT_ENCODING).unwrap(), "gzip");
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(&body[..]).read_to_end(&mut out).unwrap();
                out
            } else {
                body.to_vec()
            };
            assert_eq!(without_script(&body).expect("script injected"), original, "{name}: other bytes changed");
        }
        assert_eq!(stats.rewritten(), 3);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn host_location_links_and_untouched_responses() {
    let up = upstream(false).await;
    let (px, stats) = proxy(up, inject()).await;
    // The upstream sees its own Host.
    let (_, body) = fetch(Method::GET, px, "/host", false).await;
    assert_eq!(body, format!("Some({:?})", up.to_string()));
    // Location and links to the upstream point at the proxy; other links stay.
    let (parts, _) = fetch(Method::GET, px, "/redirect", false).await;
    assert_eq!(parts.headers.get(LOCATION).unwrap().to_str().unwrap(), format!("http://{px}/moved-here"));
    let (_, body) = fetch(Method::GET, px, "/links", false).await;
    let body = String::from_utf8(body.to_vec()).unwrap();
    assert!(body.contains(&format!("<a href=\"http://{px}/x?y#z\">in</a>")), "{body}");
    assert!(body.contains("<a href=\"http://other.example/\">out</a>"), "{body}");
    // Issue 20, item 15: a client's Host never reaches links or Location (a shared cache would
    // keep them): they go to the configured public URL whatever Host was sent.
    for path in ["/links", "/redirect"] {
        let req = Request::get(format!("http://{px}{path}")).header(HOST, "evil.example").body(Empty::new()).unwrap();
        let (parts, body) = client().request(req).await.unwrap().into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        let all = format!("{:?} {}", parts.headers, String::from_utf8_lossy(&body));
        assert!(!all.contains("evil.example") && all.contains(&format!("http://{px}/")), "{path}: {all}");
    }
    // HEAD gets the rewritten GET's headers (no Content-Length: the GET's length differs); 206
    // passes untouched.
    let (parts, body) = fetch(Method::HEAD, px, "/page/html5ever-bench/lipsum.html", false).await;
    assert!(parts.headers.get(CONTENT_LENGTH).is_none() && body.is_empty());
    let (parts, body) = fetch(Method::GET, px, "/partial", false).await;
    assert_eq!((parts.status, &body[..]), (StatusCode::PARTIAL_CONTENT, &b"<head>"[..]));
    assert_eq!(stats.rewritten(), 2); // /links, twice
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_file_from_the_cli() {
    let up = upstream(false).await;
    let toml = "version = 1\n\n[[rule]]\nselector = \"img\"\naction = \"set-attr\"\nname = \"loading\"\nvalue = \"lazy\"\n\n[[rule]]\nselector = \"p.ad\"\naction = \"remove\"\n";
    let rules = Rules { rule_set: Some(Arc::new(RuleSet::from_toml_str(toml).unwrap())), inject_head: None };
    let (px, _) = proxy(up, rules).await;
    let (_, body) = fetch(Method::GET, px, "/rules", false).await;
    assert_eq!(&body[..], b"<img src=a.png loading=\"lazy\">");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_502_early_disconnect_and_a_big_page() {
    // Nothing listens on the upstream port: 502.
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let (px, _) = proxy(dead, inject()).await;
    let (parts, _) = fetch(Method::GET, px, "/", false).await;
    assert_eq!(parts.status, StatusCode::BAD_GATEWAY);

    // A client that reads a little of a big page and hangs up; the proxy goes on serving.
    let up = upstream(false).await;
    let (px, stats) = proxy(up, inject()).await;
    let mut conn = tokio::net::TcpStream::connect(px).await.unwrap();
    conn.write_all(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    let mut first = [0u8; 4096];
    let n = conn.read(&mut first).await.unwrap();
    assert!(first[..n].starts_with(b"HTTP/1.1 200"));
    drop(conn);
    // The whole 8 MiB page streams through.
    let (_, body) = fetch(Method::GET, px, "/big", false).await;
    assert_eq!(body.len(), 25 + 128 * 64 * 1024 + SCRIPT.len());
    assert_eq!(stats.rewritten(), 2);
}

/// A one-connection upstream that reads the request head, writes `response`, then stalls:
/// it waits for the proxy to hang up and reports what its last read returned (0: closed).
async fn stalling_upstream(response: String) -> (SocketAddr, tokio::sync::oneshot::Receiver<usize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (closed_tx, closed_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (conn, _) = listener.accept().await.unwrap();
        let mut conn = tokio::io::BufReader::new(conn);
        let mut line = String::new();
        // The request head ends with an empty line.
        while conn.read_line(&mut line).await.unwrap() > 2 {
            line.clear();
        }
        conn.write_all(response.as_bytes()).await.unwrap();
        let _ = closed_tx.send(conn.read(&mut [0u8; 1024]).await.unwrap_or(0));
    });
    (addr, closed_rx)
}

/// The stall policy (`Config::upstream_timeout`): an upstream that sends no head gets the
/// client a 504; one that stalls mid-body gets the client the rewritten part and then a
/// truncated response (a body error, the connection closed); both upstream connections are
/// closed by the proxy. A client that reads slowly is not a stalled upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_upstream_504_before_the_head_truncated_after() {
    const IDLE: Duration = Duration::from_millis(300);
    let (up, closed) = stalling_upstream(String::new()).await;
    let (px, _) = proxy_with_timeout(up, inject(), IDLE).await;
    let start = Instant::now();
    let (parts, body) = fetch(Method::GET, px, "/", false).await;
    assert_eq!(parts.status, StatusCode::GATEWAY_TIMEOUT, "{body:?}");
    assert!(start.elapsed() >= IDLE);
    assert_eq!(tokio::time::timeout(Duration::from_secs(5), closed).await.unwrap().unwrap(), 0);

    let page = "<html><head></head><body>first part";
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n";
    let (up, closed) = stalling_upstream(format!("{head}{:x}\r\n{page}\r\n", page.len())).await;
    let (px, stats) = proxy_with_timeout(up, inject(), IDLE).await;
    let req = Request::get(format!("http://{px}/")).body(Empty::new()).unwrap();
    let res = client().request(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let start = Instant::now();
    let mut body = res.into_body();
    let mut got = Vec::new();
    let error = loop {
        match tokio::time::timeout(Duration::from_secs(5), body.frame()).await.expect("the client is not held") {
            Some(Ok(frame)) => got.extend_from_slice(frame.data_ref().unwrap()),
            Some(Err(e)) => break e,
            None => panic!("a stalled body must not look complete"),
        }
    };
    assert!(start.elapsed() >= IDLE, "{error}");
    assert_eq!(String::from_utf8(got).unwrap(), format!("<html><head>{SCRIPT}</head><body>first part"));
    assert_eq!(tokio::time::timeout(Duration::from_secs(5), closed).await.unwrap().unwrap(), 0);
    assert_eq!(stats.rewritten(), 1);

    // A client that pauses longer than the idle time between reads still gets the whole page.
    let up = upstream(false).await;
    let (px, _) = proxy_with_timeout(up, inject(), IDLE).await;
    let res = client().request(Request::get(format!("http://{px}/big")).body(Empty::new()).unwrap()).await.unwrap();
    let mut body = res.into_body();
    let (mut total, mut frames) = (0, 0);
    while let Some(frame) = body.frame().await {
        total += frame.unwrap().data_ref().unwrap().len();
        frames += 1;
        if frames <= 2 {
            tokio::time::sleep(IDLE * 2).await;
        }
    }
    assert_eq!(total, 25 + 128 * 64 * 1024 + SCRIPT.len());
}
