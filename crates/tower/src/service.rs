//! [`HtmlRewrite`]: the service.

use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body::Body;
use tower_service::Service;

use crate::body::HtmlRewriteBody;
use crate::future::ResponseFuture;
use crate::layer::{Config, MakeSettings};

/// A service that rewrites the HTML responses of `S` (made by
/// [`HtmlRewriteLayer`](crate::HtmlRewriteLayer)).
///
/// Each call keeps a copy of the request's parts (method, URI, version,
/// headers, extensions) for the factory.
pub struct HtmlRewrite<S, F> {
    inner: S,
    factory: Arc<F>,
    config: Arc<Config>,
}

impl<S: Clone, F> Clone for HtmlRewrite<S, F> {
    fn clone(&self) -> Self {
        HtmlRewrite { inner: self.inner.clone(), factory: self.factory.clone(), config: self.config.clone() }
    }
}

impl<S: std::fmt::Debug, F> std::fmt::Debug for HtmlRewrite<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HtmlRewrite").field("inner", &self.inner).field("config", &self.config).finish_non_exhaustive()
    }
}

impl<S, F> HtmlRewrite<S, F> {
    pub(crate) fn new(inner: S, factory: Arc<F>, config: Arc<Config>) -> Self {
        HtmlRewrite { inner, factory, config }
    }

    /// The inner service.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }
}

impl<S, F, ReqBody, ResBody> Service<Request<ReqBody>> for HtmlRewrite<S, F>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    ResBody: Body,
    F: MakeSettings,
{
    type Response = Response<HtmlRewriteBody<ResBody>>;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future, F>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<ReqBody>) -> Self::Future {
        let (parts, body) = req.into_parts();
        let kept = parts.clone();
        let inner = self.inner.call(Request::from_parts(parts, body));
        ResponseFuture::new(inner, kept, self.factory.clone(), self.config.clone())
    }
}
