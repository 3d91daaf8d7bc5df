//! The layer between a real upstream (axum on loopback) and the hyper-util client:
//! corpus pages with Content-Length and chunked, identity and gzip; headers; responses
//! that must stay untouched; trailers, streaming, faults and both error policies.

use std::io::Read;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::body::Body as AxumBody;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use futures_util::stream;
use htrewrite::{ContentType, IoSink, OnError, Rewriter, Sendable, Settings};
use htrewrite_tower::{ErrorKind, ErrorPolicy, EtagPolicy, HtmlRewriteLayer};
use http::header::{
    ACCEPT_ENCODING, ACCEPT_RANGES, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG,
};
use http::{Method, Request, StatusCode, request, response};
use http_body_util::{BodyExt, Empty, StreamBody};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::sync::Notify;
use tower::{ServiceBuilder, ServiceExt};

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/corpus")
}

/// The vendored pages, by path under the corpus folder.
fn pages() -> Vec<String> {
    let manifest = std::fs::read_to_string(corpus().join("MANIFEST.tsv")).unwrap();
    manifest.lines().skip(1).map(|l| l.split('\t').next().unwrap().to_string()).collect()
}

fn inject() -> Settings<'static, Sendable> {
    Settings::new_send().element("head", |el| {
        el.append(SCRIPT, ContentType::Html)?;
        Ok(())
    })
}

fn factory(_: &request::Parts, _: &response::Parts) -> Option<Settings<'static, Sendable>> {
    Some(inject())
}

/// What the layer must produce: the synchronous rewriter on the whole page, same encoding rules.
fn reference(page: &[u8], charset: Option<&str>) -> Vec<u8> {
    let settings = inject().on_error(OnError::PassThrough).sniff_encoding(charset, "windows-1252").unwrap();
    let mut rw = Rewriter::new(settings, IoSink(Vec::new())).unwrap();
    rw.write(page).unwrap();
    rw.end().unwrap().0
}

struct Upstream {
    release: Notify,
}

async fn page_with_length(Path(path): Path<String>) -> Response {
    let bytes = std::fs::read(corpus().join(path)).unwrap();
    let headers = [
        (CONTENT_TYPE, "text/html; charset=utf-8"),
        (ETAG, "\"v1\""),
        (ACCEPT_RANGES, "bytes"),
        (http::HeaderName::from_static("content-digest"), "sha-256=:x:"),
    ];
    (headers, bytes).into_response()
}

async fn page_chunked(Path(path): Path<String>) -> Response {
    let bytes = Bytes::from(std::fs::read(corpus().join(path)).unwrap());
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        (0..bytes.len()).step_by(1000).map(|i| Ok(bytes.slice(i..(i + 1000).min(bytes.len())))).collect();
    ([(CONTENT_TYPE, "text/html")], AxumBody::from_stream(stream::iter(chunks))).into_response()
}

async fn json() -> Response {
    ([(CONTENT_TYPE, "application/json")], "{\"html\": \"<head></head>\"}").into_response()
}

async fn partial() -> Response {
    (StatusCode::PARTIAL_CONTENT, [(CONTENT_TYPE, "text/html"), (CONTENT_RANGE, "bytes 0-12/100")], "<head></head>")
        .into_response()
}

async fn not_modified() -> Response {
    (StatusCode::NOT_MODIFIED, [(ETAG, "\"v1\"")]).into_response()
}

async fn no_transform() -> Response {
    ([(CONTENT_TYPE, "text/html"), (CACHE_CONTROL, "public, no-transform")], "<head></head>").into_response()
}

/// Sends the head, then stalls until the test releases it.
async fn stalled(State(up): State<Arc<Upstream>>) -> Response {
    let body = stream::unfold(0, move |step| {
        let up = up.clone();
        async move {
            match step {
                0 => Some((Ok::<_, std::io::Error>(Bytes::from("<html><head><title>t</title></head><body>first")), 1)),
                1 => {
                    up.release.notified().await;
                    Some((Ok(Bytes::from(" second</body></html>")), 2))
                }
                _ => None,
            }
        }
    });
    // With a charset the rewriter need not wait for the <meta> prescan (up to 1024 bytes).
    ([(CONTENT_TYPE, "text/html; charset=utf-8")], AxumBody::from_stream(body)).into_response()
}

/// Sends part of a page, then fails: the upstream closes the connection mid-body.
async fn broken() -> Response {
    let body = stream::unfold(0, |step| async move {
        match step {
            0 => Some((Ok(Bytes::from("<html><head></head><body>partial")), 1)),
            1 => {
                // Let the head and the first chunk reach the client first.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                Some((Err(std::io::Error::other("upstream died")), 2))
            }
            _ => None,
        }
    });
    ([(CONTENT_TYPE, "text/html; charset=utf-8")], AxumBody::from_stream(body)).into_response()
}

async fn upstream(gzip: bool) -> (SocketAddr, Arc<Upstream>) {
    let state = Arc::new(Upstream { release: Notify::new() });
    let app = Router::new()
        .route("/cl/{*path}", get(page_with_length))
        .route("/chunked/{*path}", get(page_chunked))
        .route("/json", get(json))
        .route("/partial", get(partial))
        .route("/not-modified", get(not_modified))
        .route("/no-transform", get(no_transform))
        .route("/stalled", get(stalled))
        .route("/broken", get(broken))
        .with_state(state.clone());
    let app = if gzip { app.layer(tower_http::compression::CompressionLayer::new()) } else { app };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, state)
}

fn client() -> Client<HttpConnector, Empty<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

fn get_req(addr: SocketAddr, path: &str) -> Request<Empty<Bytes>> {
    Request::get(format!("http://{addr}{path}")).body(Empty::new()).unwrap()
}

/// Every corpus page, with Content-Length and chunked: the body is the reference rewrite,
/// the injected script is present, and removing it gives back the upstream's exact bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corpus_pages_identity_content_length_and_chunked() {
    let (addr, _) = upstream(false).await;
    let layer = HtmlRewriteLayer::new(factory);
    let stats = layer.stats();
    let service = ServiceBuilder::new().layer(layer).service(client());
    let mut failures = Vec::new();
    let mut injected = 0;
    let pages = pages();
    for page in &pages {
        let original = std::fs::read(corpus().join(page)).unwrap();
        for (route, charset) in [("cl", Some("utf-8")), ("chunked", None)] {
            let res = service.clone().oneshot(get_req(addr, &format!("/{route}/{page}"))).await.unwrap();
            assert_eq!(res.status(), StatusCode::OK);
            let h = res.headers();
            assert!(h.get(CONTENT_LENGTH).is_none() && h.get(ACCEPT_RANGES).is_none(), "{route}/{page}: {h:?}");
            assert!(h.get("content-digest").is_none(), "{route}/{page}: digest kept");
            if route == "cl" {
                assert_eq!(h.get(ETAG).unwrap(), "W/\"v1\"");
            }
            let body = res.into_body().collect().await.unwrap().to_bytes();
            if body[..] != reference(&original, charset)[..] {
                failures.push(format!("{route}/{page}: differs from the reference rewrite"));
                continue;
            }
            if let Some(at) = body.windows(SCRIPT.len()).position(|w| w == SCRIPT.as_bytes()) {
                injected += 1;
                let mut back = body[..at].to_vec();
                back.extend_from_slice(&body[at + SCRIPT.len()..]);
                if back != original {
                    failures.push(format!("{route}/{page}: bytes other than the injection changed"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(stats.rewritten() as usize, 2 * pages.len());
    assert!(injected >= 2 * pages.len() - 4, "injected into {injected} of {} responses", 2 * pages.len());
}

/// decompress → rewrite → compress, with a gzip upstream; the client decodes gzip itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gzip_upstream_decompress_rewrite_compress() {
    let (addr, _) = upstream(true).await;
    let layer = HtmlRewriteLayer::new(factory);
    let stats = layer.stats();
    let service = ServiceBuilder::new()
        .layer(tower_http::compression::CompressionLayer::new())
        .layer(layer)
        .layer(tower_http::decompression::DecompressionLayer::new())
        .service(client());
    for page in ["lol-html-bench/cloudflare.com.html", "readability/wikipedia.html", "html5ever-bench/lipsum.html"] {
        let original = std::fs::read(corpus().join(page)).unwrap();
        for route in ["cl", "chunked"] {
            let mut req = get_req(addr, &format!("/{route}/{page}"));
            req.headers_mut().insert(ACCEPT_ENCODING, "gzip".parse().unwrap());
            let res = service.clone().oneshot(req).await.unwrap();
            assert_eq!(res.headers().get(CONTENT_ENCODING).unwrap(), "gzip", "{route}/{page}");
            let gz = res.into_body().collect().await.unwrap().to_bytes();
            let mut body = Vec::new();
            flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut body).unwrap();
            let charset = (route == "cl").then_some("utf-8");
            assert!(body == reference(&original, charset), "{route}/{page}: differs from the reference rewrite");
            assert!(body.windows(SCRIPT.len()).any(|w| w == SCRIPT.as_bytes()), "{route}/{page}: no injection");
        }
    }
    assert_eq!(stats.rewritten(), 6);

    // Without the decompression layer, the gzip response is left alone.
    let layer = HtmlRewriteLayer::new(factory);
    let stats = layer.stats();
    let service = ServiceBuilder::new().layer(layer).service(client());
    let mut req = get_req(addr, "/cl/html5ever-bench/lipsum.html");
    req.headers_mut().insert(ACCEPT_ENCODING, "gzip".parse().unwrap());
    let res = service.oneshot(req).await.unwrap();
    assert_eq!(res.headers().get(CONTENT_ENCODING).unwrap(), "gzip");
    assert!(!res.body().is_rewriting());
    assert_eq!((stats.rewritten(), stats.skipped()), (0, 1));
}

/// Issue 20, item 15: a HEAD of a page a GET would rewrite gets the GET's headers: no
/// Content-Length (the rewritten GET has another length), no Accept-Ranges, a weak ETag.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_gets_the_headers_of_the_rewritten_get() {
    let (addr, _) = upstream(false).await;
    let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory)).service(client());
    let page = "/cl/html5ever-bench/lipsum.html";
    let strip_date = |h: &http::HeaderMap| {
        let mut h = h.clone();
        h.remove(http::header::DATE);
        h
    };
    let get = service.clone().oneshot(get_req(addr, page)).await.unwrap();
    let mut head = get_req(addr, page);
    *head.method_mut() = Method::HEAD;
    let head = service.clone().oneshot(head).await.unwrap();
    assert!(head.headers().get(CONTENT_LENGTH).is_none());
    assert_eq!(strip_date(head.headers()), strip_date(get.headers()));
    assert!(!head.body().is_rewriting());
    assert!(head.into_body().collect().await.unwrap().to_bytes().is_empty());
}

/// Non-HTML, 206, 304 and no-transform responses pass untouched, headers and bytes; so does a
/// HEAD of a response a GET would leave alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unsafe_responses_untouched() {
    let (addr, _) = upstream(false).await;
    let layer = HtmlRewriteLayer::new(factory);
    let stats = layer.stats();
    let service = ServiceBuilder::new().layer(layer).service(client());
    for (method, path) in [
        (Method::GET, "/json"),
        (Method::GET, "/partial"),
        (Method::GET, "/not-modified"),
        (Method::GET, "/no-transform"),
        (Method::HEAD, "/json"),
    ] {
        let mut direct = get_req(addr, path);
        *direct.method_mut() = method.clone();
        let direct = client().request(direct).await.unwrap();
        let mut req = get_req(addr, path);
        *req.method_mut() = method.clone();
        let res = service.clone().oneshot(req).await.unwrap();
        assert_eq!(res.status(), direct.status(), "{method} {path}");
        let strip_date = |h: &http::HeaderMap| {
            let mut h = h.clone();
            h.remove(http::header::DATE);
            h
        };
        assert_eq!(strip_date(res.headers()), strip_date(direct.headers()), "{method} {path}");
        assert!(!res.body().is_rewriting(), "{method} {path}");
        let want = direct.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(res.into_body().collect().await.unwrap().to_bytes(), want, "{method} {path}");
    }
    assert_eq!((stats.rewritten(), stats.skipped()), (0, 5));
}

/// Output leaves as soon as the rewriter has it: with the upstream stalled after `</head>`,
/// the client already holds the injected script.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_while_the_upstream_stalls() {
    let (addr, up) = upstream(false).await;
    let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory)).service(client());
    let mut body = service.oneshot(get_req(addr, "/stalled")).await.unwrap().into_body();
    let mut got = Vec::new();
    while !got.windows(5).any(|w| w == b"first") {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(5), body.frame()).await.unwrap();
        got.extend_from_slice(frame.unwrap().unwrap().data_ref().unwrap());
    }
    assert!(got.windows(SCRIPT.len()).any(|w| w == SCRIPT.as_bytes()));
    up.release.notify_one();
    while let Some(frame) = body.frame().await {
        got.extend_from_slice(frame.unwrap().data_ref().unwrap());
    }
    let want = format!("<html><head><title>t</title>{SCRIPT}</head><body>first second</body></html>");
    assert_eq!(String::from_utf8(got).unwrap(), want);
}

/// The upstream closes mid-body: the body ends with an error of kind Body, no panic;
/// a client dropping the body early is no problem either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_closes_mid_body_and_early_drop() {
    let (addr, _) = upstream(false).await;
    let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory)).service(client());
    let res = service.clone().oneshot(get_req(addr, "/broken")).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let err = res.into_body().collect().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Body);

    let mut body = service
        .clone()
        .oneshot(get_req(addr, "/chunked/lol-html-bench/html-parsing-spec.html"))
        .await
        .unwrap()
        .into_body();
    let first = body.frame().await.unwrap().unwrap();
    assert!(first.is_data());
    drop(body);
    // The service still works after the drop.
    let res = service.oneshot(get_req(addr, "/cl/html5ever-bench/lipsum.html")).await.unwrap();
    assert!(res.into_body().collect().await.is_ok());
}

/// An in-process response body: a fixed list of frames.
type Frames =
    StreamBody<futures_util::stream::Iter<std::vec::IntoIter<Result<http_body::Frame<Bytes>, std::io::Error>>>>;

fn in_process_response(frames: Vec<http_body::Frame<Bytes>>) -> http::Response<Frames> {
    let frames: Vec<_> = frames.into_iter().map(Ok).collect();
    http::Response::builder()
        .header(CONTENT_TYPE, "text/html; charset=utf-8")
        .header(ETAG, "\"strong\"")
        .body(StreamBody::new(stream::iter(frames)))
        .unwrap()
}

/// Trailers go out after the last rewritten byte.
#[tokio::test(flavor = "current_thread")]
async fn trailers_after_the_rewritten_body() {
    let mut trailers = http::HeaderMap::new();
    trailers.insert("x-checksum", "abc".parse().unwrap());
    let t = trailers.clone();
    let inner = tower::service_fn(move |_req: Request<()>| {
        let frames = vec![
            http_body::Frame::data(Bytes::from("<head><ti")),
            http_body::Frame::data(Bytes::from("tle>t</title>")),
            http_body::Frame::trailers(t.clone()),
        ];
        async move { Ok::<_, std::convert::Infallible>(in_process_response(frames)) }
    });
    let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory).etag(EtagPolicy::Drop)).service(inner);
    let res = service.oneshot(Request::new(())).await.unwrap();
    assert!(res.headers().get(ETAG).is_none());
    let mut body = res.into_body();
    let mut data = Vec::new();
    let mut got_trailers = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.unwrap();
        assert!(got_trailers.is_none(), "a frame after the trailers");
        match frame.into_data() {
            Ok(d) => data.extend_from_slice(&d),
            Err(frame) => got_trailers = Some(frame.into_trailers().unwrap()),
        }
    }
    assert_eq!(String::from_utf8(data).unwrap(), format!("<head><title>t</title>{SCRIPT}"));
    assert_eq!(got_trailers.unwrap(), trailers);
}

type Factory = fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>>;

/// A failing handler, in a token or at the end of the document (a document-end handler):
/// PassThrough (default) sends the rest unchanged; Abort ends the body with an error. Both
/// are counted, also a failure at the end (the layer ends the rewriter with
/// `Rewriter::end_with_error`).
#[tokio::test(flavor = "current_thread")]
async fn error_policies() {
    let in_a_token: Factory = |_, _| {
        Some(Settings::new_send().element("b", |_| Err("handler refused".into())).element("i", |el| {
            el.set_attribute("x", "1")?;
            Ok(())
        }))
    };
    let at_the_end: Factory = |_, _| {
        Some(
            Settings::new_send()
                .element("i", |el| {
                    el.set_attribute("x", "1")?;
                    Ok(())
                })
                .end(|_| Err("no footer today".into())),
        )
    };
    let inner = tower::service_fn(|_req: Request<()>| async {
        let frames = vec![
            http_body::Frame::data(Bytes::from("<i>a</i><b>b</b>")),
            http_body::Frame::data(Bytes::from("<i>c</i>")),
        ];
        Ok::<_, std::convert::Infallible>(in_process_response(frames))
    });
    let cases = [
        (in_a_token, "<i x=\"1\">a</i><b>b</b><i>c</i>", "handler refused"),
        (at_the_end, "<i x=\"1\">a</i><b>b</b><i x=\"1\">c</i>", "no footer today"),
    ];
    for (factory, passed_through, message) in cases {
        let layer = HtmlRewriteLayer::new(factory);
        let stats = layer.stats();
        let res = ServiceBuilder::new().layer(layer).service(inner).oneshot(Request::new(())).await.unwrap();
        let body = res.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(&body[..], passed_through.as_bytes(), "{message}");
        assert_eq!((stats.passed_through(), stats.aborted()), (1, 0), "{message}");

        let layer = HtmlRewriteLayer::new(factory).on_error(ErrorPolicy::Abort);
        let stats = layer.stats();
        let res = ServiceBuilder::new().layer(layer).service(inner).oneshot(Request::new(())).await.unwrap();
        let err = res.into_body().collect().await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Rewrite);
        assert!(err.to_string().contains(message), "{err}");
        assert_eq!((stats.passed_through(), stats.aborted()), (0, 1), "{message}");
    }

    // A bad selector: the response is left alone and counted as skipped.
    let layer = HtmlRewriteLayer::new(|_: &request::Parts, _: &response::Parts| {
        Some(Settings::new_send().element("p[", |_| Ok(())))
    });
    let stats = layer.stats();
    let res = ServiceBuilder::new().layer(layer).service(inner).oneshot(Request::new(())).await.unwrap();
    assert!(!res.body().is_rewriting());
    assert_eq!(stats.skipped(), 1);
}

/// Issue 20, item 4: the upstream fails after N bytes (for many N, the page cut anywhere): the
/// client gets, before the error, the rewrite of those N bytes as a whole document (a cut-off
/// page ends where it was cut, as in a browser), with either error policy; then the error.
#[tokio::test(flavor = "current_thread")]
async fn upstream_failure_after_n_bytes_delivers_everything_received() {
    let page = std::fs::read(corpus().join("lol-html-bench/cloudflare.com.html")).unwrap();
    let cuts: Vec<usize> = [0, 1, 5, 100, 1000, 4096, 10_000, 33_333, 65_536, 100_000, page.len() - 1].to_vec();
    for policy in [ErrorPolicy::PassThrough, ErrorPolicy::Abort] {
        for &n in &cuts {
            let prefix = Bytes::copy_from_slice(&page[..n]);
            let inner = tower::service_fn(move |_req: Request<()>| {
                let mut frames: Vec<Result<http_body::Frame<Bytes>, std::io::Error>> =
                    prefix.chunks(7_000).map(|c| Ok(http_body::Frame::data(Bytes::copy_from_slice(c)))).collect();
                frames.push(Err(std::io::Error::other("upstream closed mid-body")));
                async move {
                    let res = http::Response::builder()
                        .header(CONTENT_TYPE, "text/html; charset=utf-8")
                        .body(StreamBody::new(stream::iter(frames)))
                        .unwrap();
                    Ok::<_, std::convert::Infallible>(res)
                }
            });
            let service = ServiceBuilder::new().layer(HtmlRewriteLayer::new(factory).on_error(policy)).service(inner);
            let mut body = service.oneshot(Request::new(())).await.unwrap().into_body();
            let mut got = Vec::new();
            let error = loop {
                match body.frame().await {
                    Some(Ok(frame)) => got.extend_from_slice(frame.data_ref().unwrap()),
                    Some(Err(e)) => break Some(e),
                    None => break None,
                }
            };
            assert_eq!(error.map(|e| e.kind()), Some(ErrorKind::Body), "{policy:?}, cut at {n}");
            let want = reference(&page[..n], Some("utf-8"));
            assert!(got == want, "{policy:?}, cut at {n}: {} bytes before the error, want {}", got.len(), want.len());
        }
    }
}
