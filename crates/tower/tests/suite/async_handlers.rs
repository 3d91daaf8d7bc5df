//! Async handlers through the layer (issue 19): a factory that returns
//! [`AsyncSettings`] streams each fragment into the body in document order,
//! several at once, with the trailers after the last byte; a fragment that
//! fails goes through the [`ErrorPolicy`] (the slot's fallback and a count
//! under `PassThrough`, an aborted body of kind `Content` under `Abort`).
//! Timing on Tokio's paused clock.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream;
use htrewrite::{ContentType, Fallback, Sendable, Settings};
use htrewrite_tokio::{AsyncSettings, Content, Defer};
use htrewrite_tower::{ErrorKind, ErrorPolicy, HtmlRewriteLayer};
use http::header::CONTENT_TYPE;
use http::{Request, request, response};
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use tower::util::BoxCloneService;
use tower::{ServiceBuilder, ServiceExt};

type Factory = fn(&request::Parts, &response::Parts) -> Option<AsyncSettings<'static, Sendable>>;

/// Each `<x-f src=N>` becomes a fragment streamed in two chunks after N × 10 ms; `src=fail`
/// fails; anything else is kept.
fn fragments(_: &request::Parts, _: &response::Parts) -> Option<AsyncSettings<'static, Sendable>> {
    let settings =
        AsyncSettings::new(Settings::new_send()).fallback(Fallback::Empty).element_async("x-f", Defer::Replace, |el| {
            let src = el.get_attribute("src")?;
            Some(async move {
                let delay: u64 = src.parse().map_err(|_| format!("no fragment {src:?}"))?;
                tokio::time::sleep(Duration::from_millis(delay * 10)).await;
                let chunks = [Ok::<_, std::io::Error>(Bytes::from(format!("<li>{src}"))), Ok(Bytes::from("</li>"))];
                Ok(Content::stream(stream::iter(chunks), ContentType::Html))
            })
        });
    Some(settings)
}

/// The upstream's body.
type UpstreamBody = StreamBody<stream::Iter<std::vec::IntoIter<Result<Frame<Bytes>, std::io::Error>>>>;

/// The upstream: data frames of `chunks`, then `trailers`, with `Content-Type: text/html`.
fn upstream(
    chunks: Vec<&'static str>,
    trailers: Option<http::HeaderMap>,
) -> BoxCloneService<Request<()>, http::Response<UpstreamBody>, Infallible> {
    BoxCloneService::new(tower::service_fn(move |_req: Request<()>| {
        let mut frames: Vec<_> = chunks.iter().map(|&c| Ok(Frame::data(Bytes::from(c)))).collect();
        frames.extend(trailers.clone().map(|t| Ok(Frame::trailers(t))));
        async move {
            let res = http::Response::builder()
                .header(CONTENT_TYPE, "text/html; charset=utf-8")
                .body(StreamBody::new(stream::iter(frames)))
                .unwrap();
            Ok::<_, Infallible>(res)
        }
    }))
}

/// The page, in three frames.
const PAGE: [&str; 3] = ["<h1>first</h1><ul><x-f src=9></x-f><x-f src=", "1></x-f><x-f src=5></x-f></ul>", "<p>end"];

/// Fragments resolving out of order come out in document order, concurrently, with the
/// trailers after the last byte; the bytes before the first fragment leave before it resolves.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn fragments_in_document_order_with_trailers() {
    let mut trailers = http::HeaderMap::new();
    trailers.insert("x-checksum", "abc".parse().unwrap());
    let layer = HtmlRewriteLayer::new_async(fragments as Factory);
    let stats = layer.stats();
    let start = tokio::time::Instant::now();
    let res = ServiceBuilder::new().layer(layer).service(upstream(PAGE.to_vec(), Some(trailers.clone())));
    let res = res.oneshot(Request::new(())).await.unwrap();
    assert!(res.body().is_rewriting());
    let mut body = res.into_body();
    let (mut data, mut first, mut got_trailers) = (Vec::new(), None, None);
    while let Some(frame) = body.frame().await {
        match frame.unwrap().into_data() {
            Ok(d) => {
                first.get_or_insert_with(|| (start.elapsed(), d.clone()));
                data.extend_from_slice(&d);
            }
            Err(frame) => got_trailers = Some(frame.into_trailers().unwrap()),
        }
    }
    assert_eq!(String::from_utf8(data).unwrap(), "<h1>first</h1><ul><li>9</li><li>1</li><li>5</li></ul><p>end");
    let (at, bytes) = first.unwrap();
    assert_eq!((at, &bytes[..]), (Duration::ZERO, &b"<h1>first</h1><ul>"[..]));
    assert_eq!(start.elapsed(), Duration::from_millis(90), "the three fragments ran at once");
    assert_eq!(got_trailers.unwrap(), trailers);
    assert_eq!((stats.rewritten(), stats.content_failed(), stats.aborted()), (1, 0, 0));
}

/// A failing fragment: under PassThrough its slot gets the fallback (empty here), the rest
/// is rewritten, the failure counted; under Abort the body ends with an error of kind Content.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn failing_fragment_goes_through_the_error_policy() {
    let page = vec!["<ul><x-f src=2></x-f><x-f src=fail>x</x-f><x-f src=3></x-f></ul>"];
    let layer = HtmlRewriteLayer::new_async(fragments as Factory);
    let stats = layer.stats();
    let res = ServiceBuilder::new().layer(layer).service(upstream(page.clone(), None)).oneshot(Request::new(())).await;
    let body = res.unwrap().into_body().collect().await.unwrap().to_bytes();
    assert_eq!(&body[..], b"<ul><li>2</li><li>3</li></ul>");
    assert_eq!((stats.content_failed(), stats.passed_through(), stats.aborted()), (1, 0, 0));

    let layer = HtmlRewriteLayer::new_async(fragments as Factory).on_error(ErrorPolicy::Abort);
    let stats = layer.stats();
    let res = ServiceBuilder::new().layer(layer).service(upstream(page, None)).oneshot(Request::new(())).await;
    let mut body = res.unwrap().into_body();
    let mut data = Vec::new();
    let error = loop {
        match body.frame().await {
            Some(Ok(frame)) => data.extend_from_slice(frame.data_ref().unwrap()),
            Some(Err(e)) => break e,
            None => panic!("the body ended without the error"),
        }
    };
    assert_eq!(error.kind(), ErrorKind::Content);
    assert_eq!(error.to_string(), "body aborted: content for slot 1 failed: no fragment \"fail\"");
    assert_eq!(String::from_utf8(data).unwrap(), "<ul>", "nothing after the failed slot");
    assert_eq!((stats.content_failed(), stats.aborted()), (1, 1));
}

/// Plain settings and async ones under the same layer options, and async handlers
/// run under the layer's options (here a transport charset: the page is windows-1252).
#[tokio::test(flavor = "current_thread")]
async fn sync_and_async_factories_share_the_layer() {
    let sync: fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>> = |_, _| {
        Some(Settings::new_send().element("p", |el| {
            el.set_attribute("class", "x")?;
            Ok(())
        }))
    };
    let res = ServiceBuilder::new().layer(HtmlRewriteLayer::new(sync)).service(upstream(vec!["<p>a"], None));
    let res = res.oneshot(Request::new(()));
    let body = res.await.unwrap().into_body().collect().await.unwrap().to_bytes();
    assert_eq!(&body[..], b"<p class=\"x\">a");

    let latin1 = tower::service_fn(|_req: Request<()>| async {
        let frames = vec![Ok::<_, std::io::Error>(Frame::data(Bytes::from_static(b"<p>caf\xe9</p>")))];
        let res = http::Response::builder()
            .header(CONTENT_TYPE, "text/html; charset=windows-1252")
            .body(StreamBody::new(stream::iter(frames)))
            .unwrap();
        Ok::<_, std::convert::Infallible>(res)
    });
    let appended: Factory = |_, _| {
        Some(
            AsyncSettings::new(Settings::new_send())
                .element_async("p", Defer::Append, |_| Some(async { Ok(Content::text(" — é")) })),
        )
    };
    let res =
        ServiceBuilder::new().layer(HtmlRewriteLayer::new_async(appended)).service(latin1).oneshot(Request::new(()));
    let body = res.await.unwrap().into_body().collect().await.unwrap().to_bytes();
    // Inserted text is encoded into the page's encoding (— has no windows-1252 byte but 0x97).
    assert_eq!(&body[..], b"<p>caf\xe9 \x97 \xe9</p>");
}
