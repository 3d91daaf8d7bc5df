//! The layer's default memory limit (issue 20, item 1): a response whose rewrite would hold more
//! than [`DEFAULT_MEMORY_LIMIT`] — 2,000,000 nested `<div>`s, whose stack of open elements alone
//! passes 64 MiB (a million no longer do since an open element takes about 55 bytes with the
//! stack's spare capacity) — is not rewritten past that point: under the default [`ErrorPolicy`] the rest
//! passes through, the client gets the whole body (here: the input, since the rule changes nothing
//! before the failure), and the failure is counted; `memory_limit(0)` lifts the limit.

use bytes::Bytes;
use htrewrite::{Sendable, Settings};
use htrewrite_tower::{DEFAULT_MEMORY_LIMIT, HtmlRewriteLayer};
use http::{Request, Response, request, response};
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use tower::{Layer, ServiceExt};

/// The layer's factory, as a function pointer.
type Factory = fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>>;

fn factory(_: &request::Parts, _: &response::Parts) -> Option<Settings<'static, Sendable>> {
    Some(Settings::new_send().element("p", |el| {
        el.set_attribute("class", "seen")?;
        Ok(())
    }))
}

async fn through(layer: HtmlRewriteLayer<Factory>, page: Bytes) -> Bytes {
    let upstream = tower::service_fn(move |_: Request<()>| {
        // In 64 KiB frames, as a network delivers it: the limit is checked after each.
        let frames: Vec<Result<Frame<Bytes>, std::convert::Infallible>> =
            page.chunks(64 << 10).map(|c| Ok(Frame::data(Bytes::copy_from_slice(c)))).collect();
        async move {
            let mut res = Response::new(StreamBody::new(futures_util::stream::iter(frames)));
            res.headers_mut().insert(http::header::CONTENT_TYPE, "text/html; charset=utf-8".parse().unwrap());
            Ok::<_, std::convert::Infallible>(res)
        }
    });
    let res = layer.layer(upstream).oneshot(Request::new(())).await.unwrap();
    res.into_body().collect().await.unwrap().to_bytes()
}

#[tokio::test]
async fn default_memory_limit_passes_the_rest_through() {
    assert_eq!(DEFAULT_MEMORY_LIMIT, 64 << 20);
    let page = Bytes::from("<div>".repeat(2_000_000) + "<p>end");
    let f: Factory = factory;
    let layer = HtmlRewriteLayer::new(f);
    let stats = layer.stats();
    let out = through(layer, page.clone()).await;
    assert!(out == page, "the body passes through from the failure on ({} bytes out of {})", out.len(), page.len());
    assert_eq!((stats.rewritten(), stats.passed_through()), (1, 1));

    let layer = HtmlRewriteLayer::new(f).memory_limit(0);
    let stats = layer.stats();
    let out = through(layer, page.clone()).await;
    assert!(out.ends_with(b"<p class=\"seen\">end"), "rewritten to the end without a limit");
    assert_eq!((stats.rewritten(), stats.passed_through()), (1, 0));
}
