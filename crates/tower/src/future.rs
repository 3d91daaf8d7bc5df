//! [`ResponseFuture`]: decides, per response, whether and how to rewrite.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use htrewrite::{OnError, Sendable};
use htrewrite_tokio::AsyncRewriter;
use http::{Method, Response, request, response};
use http_body::Body;
use pin_project_lite::pin_project;

use crate::body::HtmlRewriteBody;
use crate::layer::{Config, ErrorPolicy, MakeSettings};
use crate::predicate::fix_headers;

pin_project! {
    /// The future of [`HtmlRewrite`](crate::HtmlRewrite).
    pub struct ResponseFuture<Fut, F> {
        #[pin]
        inner: Fut,
        request: Option<request::Parts>,
        factory: Arc<F>,
        config: Arc<Config>,
    }
}

impl<Fut, F> ResponseFuture<Fut, F> {
    pub(crate) fn new(inner: Fut, request: request::Parts, factory: Arc<F>, config: Arc<Config>) -> Self {
        ResponseFuture { inner, request: Some(request), factory, config }
    }
}

impl<Fut, F, B, E> Future for ResponseFuture<Fut, F>
where
    Fut: Future<Output = Result<Response<B>, E>>,
    B: Body,
    F: MakeSettings,
{
    type Output = Result<Response<HtmlRewriteBody<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let (mut parts, body) = ready!(this.inner.poll(cx))?.into_parts();
        let request = this.request.take().expect("ResponseFuture polled after completion");
        let config = &**this.config;
        let body = match rewriter(&request, &parts, &**this.factory, config) {
            Some(rw) => {
                fix_headers(&mut parts.headers, config.etag);
                config.stats.count_rewritten();
                HtmlRewriteBody::rewrite(body, rw, config.policy, config.stats.clone())
            }
            None => {
                if request.method == Method::HEAD && would_rewrite_get(&request, &parts, &**this.factory, config) {
                    // A HEAD answers with the headers a GET would get (RFC 9110, 9.3.2): the
                    // rewritten page's, not the upstream's Content-Length.
                    fix_headers(&mut parts.headers, config.etag);
                }
                config.stats.count_skipped();
                HtmlRewriteBody::pass(body)
            }
        };
        Poll::Ready(Ok(Response::from_parts(parts, body)))
    }
}

/// Whether a GET of the resource a HEAD asked for would be rewritten: the
/// response passes the predicate as a GET's and the factory wants it.
fn would_rewrite_get<F: MakeSettings>(
    request: &request::Parts,
    response: &response::Parts,
    factory: &F,
    config: &Config,
) -> bool {
    config.predicate.check(&Method::GET, response).is_ok() && factory.make(request, response).is_some()
}

/// The rewriter for this response, if it is to be rewritten.
fn rewriter<F: MakeSettings>(
    request: &request::Parts,
    response: &response::Parts,
    factory: &F,
    config: &Config,
) -> Option<AsyncRewriter<'static, Sendable>> {
    let charset = match config.predicate.check(&request.method, response) {
        Ok(charset) => charset,
        Err(skip) => {
            tracing::trace!(uri = %request.uri, ?skip, "htrewrite: response left alone");
            return None;
        }
    };
    let settings = factory.make(request, response)?;
    let on_error = match config.policy {
        ErrorPolicy::PassThrough => OnError::PassThrough,
        ErrorPolicy::Abort => OnError::Stop,
    };
    let made = settings
        .try_map_settings(|s| {
            s.on_error(on_error)
                .memory_limit(config.memory_limit)
                .sniff_encoding(charset.as_deref(), &config.fallback_encoding)
        })
        .and_then(AsyncRewriter::new);
    match made {
        Ok(rw) => Some(rw),
        Err(error) => {
            tracing::warn!(uri = %request.uri, %error, "htrewrite: settings rejected, response left alone");
            None
        }
    }
}
