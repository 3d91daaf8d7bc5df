//! The proxy's fragments (issue 19, `--fragment SELECTOR=URL`): an element is replaced by the
//! body of its URL, streamed in as it arrives (the client has the fragment's first chunk while
//! the upstream still holds back the rest: nothing is collected), in document order; a
//! fragment the upstream refuses (404) keeps its element, counted in the layer's stats.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body as AxumBody;
use axum::routing::get;
use bytes::Bytes;
use htrewrite_examples::proxy::{Config, Fragment, serve};
use http::header::CONTENT_TYPE;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::sync::oneshot;

/// The upstream: `/page`, `/frag/a` (its second chunk waits for `gate`) and `/frag/b` (404).
async fn upstream(gate: oneshot::Receiver<()>) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let gate = Arc::new(Mutex::new(Some(gate)));
    let app = Router::new()
        .route(
            "/page",
            get(|| async {
                let page = "<h1>before</h1><aside id=a>old a</aside><aside id=b>old b</aside><p>after";
                ([(CONTENT_TYPE, "text/html; charset=utf-8")], page)
            }),
        )
        .route(
            "/frag/a",
            get(move || {
                let gate = gate.lock().unwrap().take();
                async move {
                    let first =
                        futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from("<b>a: the first chunk"))]);
                    let rest = futures_util::stream::once(async move {
                        if let Some(gate) = gate {
                            let _ = gate.await;
                        }
                        Ok(Bytes::from("</b>"))
                    });
                    AxumBody::from_stream(futures_util::StreamExt::chain(first, rest))
                }
            }),
        )
        .route("/frag/b", get(|| async { (StatusCode::NOT_FOUND, "no such fragment") }));
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fragments_stream_in_document_order() {
    let (open, gate) = oneshot::channel();
    let up = upstream(gate).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let fragments: Vec<Fragment> =
        ["#a", "#b"].iter().map(|id| format!("{id}=http://{up}/frag/{}", &id[1..]).parse().unwrap()).collect();
    let config = Config { fragments, ..Config::new(format!("http://{up}").parse().unwrap()) };
    let (tx, rx) = oneshot::channel();
    tokio::spawn(serve(listener, config, |s| tx.send(s).unwrap()));
    let stats = rx.await.unwrap();

    let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let req = Request::get(format!("http://{addr}/page")).body(Empty::new()).unwrap();
    let mut body = client.request(req).await.unwrap().into_body();
    let mut got = Vec::new();
    // The fragment's first chunk arrives while the upstream holds back its second.
    while !got.ends_with(b"<b>a: the first chunk") {
        let frame = body.frame().await.expect("more body").expect("no error");
        got.extend_from_slice(frame.data_ref().expect("data"));
        assert!(got.len() < 1000, "the first chunk never came: {}", String::from_utf8_lossy(&got));
    }
    assert_eq!(got, b"<h1>before</h1><b>a: the first chunk");
    open.send(()).unwrap();
    got.extend_from_slice(&body.collect().await.unwrap().to_bytes());
    assert_eq!(
        String::from_utf8(got).unwrap(),
        "<h1>before</h1><b>a: the first chunk</b><aside id=b>old b</aside><p>after"
    );
    assert_eq!((stats.rewritten(), stats.content_failed()), (1, 1));
}
