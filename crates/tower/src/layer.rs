//! [`HtmlRewriteLayer`]: the layer, its options and its counters.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use htrewrite::{Sendable, Settings};
use htrewrite_tokio::AsyncSettings;
use http::{request, response};
use tower_layer::Layer;

use crate::predicate::Predicate;
use crate::service::HtmlRewrite;

/// What happens when rewriting fails after the headers were sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// Send the rest of the body unchanged
    /// ([`OnError::PassThrough`](htrewrite::OnError::PassThrough)); the client
    /// gets a whole document, rewritten up to the failing token.
    #[default]
    PassThrough,
    /// End the body with an [`Error`](crate::Error) of kind
    /// [`Rewrite`](crate::ErrorKind::Rewrite): the client sees a truncated response.
    Abort,
}

/// What becomes of a strong `ETag` when a response is rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EtagPolicy {
    /// `"x"` becomes `W/"x"` (the rewritten body is semantically equivalent).
    #[default]
    Weaken,
    /// The header is removed.
    Drop,
}

/// Counters shared by a layer and every service and body it made.
///
/// # Example
/// ```
/// let layer = htrewrite_tower::HtmlRewriteLayer::new(|_: &http::request::Parts, _: &http::response::Parts| None);
/// assert_eq!(layer.stats().rewritten(), 0);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Stats(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    rewritten: AtomicU64,
    skipped: AtomicU64,
    passed_through: AtomicU64,
    aborted: AtomicU64,
    content_failed: AtomicU64,
}

impl Stats {
    /// Responses whose body was given a rewriter.
    pub fn rewritten(&self) -> u64 {
        self.0.rewritten.load(Ordering::Relaxed)
    }
    /// Responses left alone (by the [`Predicate`], the factory, or settings
    /// that could not make a rewriter).
    pub fn skipped(&self) -> u64 {
        self.0.skipped.load(Ordering::Relaxed)
    }
    /// Rewrites that failed and passed the rest through ([`ErrorPolicy::PassThrough`]).
    pub fn passed_through(&self) -> u64 {
        self.0.passed_through.load(Ordering::Relaxed)
    }
    /// Rewrites that failed and aborted the body ([`ErrorPolicy::Abort`]).
    pub fn aborted(&self) -> u64 {
        self.0.aborted.load(Ordering::Relaxed)
    }
    /// Async handlers' contents that failed or timed out (each slot got
    /// its fallback; under [`ErrorPolicy::Abort`] the body was also aborted,
    /// counted in [`Stats::aborted`]).
    ///
    /// # Example
    /// ```
    /// let layer = htrewrite_tower::HtmlRewriteLayer::new(|_: &http::request::Parts, _: &http::response::Parts| None);
    /// assert_eq!(layer.stats().content_failed(), 0);
    /// ```
    pub fn content_failed(&self) -> u64 {
        self.0.content_failed.load(Ordering::Relaxed)
    }
    pub(crate) fn count_content_failed(&self) {
        self.0.content_failed.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn count_rewritten(&self) {
        self.0.rewritten.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn count_skipped(&self) {
        self.0.skipped.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn count_passed_through(&self) {
        self.0.passed_through.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn count_aborted(&self) {
        self.0.aborted.fetch_add(1, Ordering::Relaxed);
    }
}

/// The default of [`HtmlRewriteLayer::memory_limit`]: 64 MiB per response.
///
/// What one rewriter holds is the longest unfinished token, the stack of
/// open elements and what handlers hold: well under 1 MiB on real pages
/// (the largest test-corpus page, 4 MB, holds under 300 KiB), so 64 MiB
/// leaves room for any page while bounding what one hostile response (100 MB
/// of nested `<div>`s, a 500 MB attribute) can make a server allocate.
pub const DEFAULT_MEMORY_LIMIT: usize = 64 << 20;

/// The options shared by a layer's services.
#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) predicate: Predicate,
    pub(crate) policy: ErrorPolicy,
    /// [`HtmlRewriteLayer::memory_limit`] (`usize::MAX` for none).
    pub(crate) memory_limit: usize,
    pub(crate) etag: EtagPolicy,
    pub(crate) fallback_encoding: String,
    pub(crate) stats: Stats,
}

/// A [`Layer`] that rewrites HTML responses with settings from a factory.
///
/// The factory is called once per response that passes the [`Predicate`],
/// with the request's and the response's parts; `None` leaves that response
/// alone. See the [crate docs](crate) for headers, encodings, errors and
/// layer order.
///
/// # Example
/// ```
/// use htrewrite::{ContentType, Settings};
/// use htrewrite_tower::{ErrorPolicy, HtmlRewriteLayer};
/// let layer = HtmlRewriteLayer::new(|req: &http::request::Parts, _res: &http::response::Parts| {
///     (!req.uri.path().starts_with("/admin")).then(|| {
///         Settings::new_send().element("body", |el| {
///             el.prepend("<div class=banner>Maintenance at 22:00</div>", ContentType::Html)?;
///             Ok(())
///         })
///     })
/// })
/// .on_error(ErrorPolicy::PassThrough);
/// # let _ = layer;
/// ```
pub struct HtmlRewriteLayer<F> {
    factory: Arc<F>,
    config: Arc<Config>,
}

impl<F> Clone for HtmlRewriteLayer<F> {
    fn clone(&self) -> Self {
        HtmlRewriteLayer { factory: self.factory.clone(), config: self.config.clone() }
    }
}

impl<F> std::fmt::Debug for HtmlRewriteLayer<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HtmlRewriteLayer").field("config", &self.config).finish_non_exhaustive()
    }
}

/// What builds each response's settings (or `None` to leave the response
/// alone): implemented for closures `Fn(&request::Parts, &response::Parts)
/// -> Option<Settings<'static, Sendable>>` ([`HtmlRewriteLayer::new`]) and
/// for [`AsyncFactory`] ([`HtmlRewriteLayer::new_async`]); users never
/// implement it.
///
/// # Example
/// ```
/// use htrewrite_tower::MakeSettings;
/// let factory = |_: &http::request::Parts, _: &http::response::Parts| Some(htrewrite::Settings::new_send());
/// let (req, _) = http::Request::new(()).into_parts();
/// let (res, _) = http::Response::new(()).into_parts();
/// assert!(factory.make(&req, &res).is_some());
/// ```
pub trait MakeSettings {
    /// The settings for this response, as async settings.
    fn make(&self, request: &request::Parts, response: &response::Parts) -> Option<AsyncSettings<'static, Sendable>>;
}

impl<F> MakeSettings for F
where
    F: Fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>>,
{
    fn make(&self, request: &request::Parts, response: &response::Parts) -> Option<AsyncSettings<'static, Sendable>> {
        self(request, response).map(AsyncSettings::new)
    }
}

/// A factory of [`AsyncSettings`] (what [`HtmlRewriteLayer::new_async`] wraps).
///
/// # Example
/// ```
/// use htrewrite_tokio::AsyncSettings;
/// use htrewrite_tower::{AsyncFactory, MakeSettings};
/// let factory = AsyncFactory(|_: &http::request::Parts, _: &http::response::Parts| {
///     Some(AsyncSettings::new(htrewrite::Settings::new_send()))
/// });
/// let (req, _) = http::Request::new(()).into_parts();
/// let (res, _) = http::Response::new(()).into_parts();
/// assert!(factory.make(&req, &res).is_some());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct AsyncFactory<F>(pub F);

impl<F> MakeSettings for AsyncFactory<F>
where
    F: Fn(&request::Parts, &response::Parts) -> Option<AsyncSettings<'static, Sendable>>,
{
    fn make(&self, request: &request::Parts, response: &response::Parts) -> Option<AsyncSettings<'static, Sendable>> {
        (self.0)(request, response)
    }
}

impl<F> HtmlRewriteLayer<F>
where
    F: Fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>>,
{
    /// A layer building each response's settings with `factory`.
    ///
    /// # Example
    /// See [`HtmlRewriteLayer`].
    pub fn new(factory: F) -> Self {
        HtmlRewriteLayer::with_factory(factory)
    }
}

impl<F> HtmlRewriteLayer<AsyncFactory<F>>
where
    F: Fn(&request::Parts, &response::Parts) -> Option<AsyncSettings<'static, Sendable>>,
{
    /// A layer building each response's settings with `factory`, with
    /// async handlers ([`AsyncSettings`]): their content streams into the
    /// body in document order while the page goes on; a failure or timeout
    /// of one gives its slot the fallback and goes through the
    /// [`ErrorPolicy`]: logged and counted in [`Stats::content_failed`]
    /// under [`ErrorPolicy::PassThrough`], the body aborted with
    /// [`ErrorKind::Content`](crate::ErrorKind::Content) under
    /// [`ErrorPolicy::Abort`].
    ///
    /// # Example
    /// ```
    /// use htrewrite::{ContentType, Settings};
    /// use htrewrite_tokio::{AsyncSettings, Content, Defer};
    /// use htrewrite_tower::HtmlRewriteLayer;
    /// let layer = HtmlRewriteLayer::new_async(|_req: &http::request::Parts, _res: &http::response::Parts| {
    ///     Some(AsyncSettings::new(Settings::new_send()).element_async("esi-include", Defer::Replace, |el| {
    ///         let src = el.get_attribute("src")?;
    ///         Some(async move {
    ///             // a sub-request in real life; a stream of its body chunks
    ///             let body = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::from(format!("<nav>{src}</nav>")))]);
    ///             Ok(Content::stream(body, ContentType::Html))
    ///         })
    ///     }))
    /// });
    /// # let _ = layer;
    /// ```
    pub fn new_async(factory: F) -> Self {
        HtmlRewriteLayer::with_factory(AsyncFactory(factory))
    }
}

impl<F: MakeSettings> HtmlRewriteLayer<F> {
    fn with_factory(factory: F) -> Self {
        HtmlRewriteLayer {
            factory: Arc::new(factory),
            config: Arc::new(Config {
                predicate: Predicate::default(),
                policy: ErrorPolicy::default(),
                memory_limit: DEFAULT_MEMORY_LIMIT,
                etag: EtagPolicy::default(),
                fallback_encoding: "windows-1252".to_string(),
                stats: Stats::default(),
            }),
        }
    }

    fn config(mut self, f: impl FnOnce(&mut Config)) -> Self {
        f(Arc::make_mut(&mut self.config));
        self
    }

    /// Rewrite `application/xhtml+xml` too (default off).
    pub fn xhtml(self, on: bool) -> Self {
        self.config(|c| c.predicate.xhtml = on)
    }

    /// The policy for failures after the headers were sent (default [`ErrorPolicy::PassThrough`]).
    /// It overrides the settings' own [`OnError`](htrewrite::OnError).
    pub fn on_error(self, policy: ErrorPolicy) -> Self {
        self.config(|c| c.policy = policy)
    }

    /// The memory limit of each response's rewriter, in bytes
    /// ([`Settings::memory_limit`]; default [`DEFAULT_MEMORY_LIMIT`], `0`
    /// for none). It overrides the settings' own. A response whose rewrite
    /// would hold more fails with
    /// [`RewritingError::MemoryLimitExceeded`](htrewrite::RewritingError::MemoryLimitExceeded),
    /// handled by the [`ErrorPolicy`]: by default the rest of the body
    /// passes through unchanged, counted in [`Stats::passed_through`].
    ///
    /// # Example
    /// ```
    /// use htrewrite::Settings;
    /// use htrewrite_tower::HtmlRewriteLayer;
    /// let layer = HtmlRewriteLayer::new(|_: &http::request::Parts, _: &http::response::Parts| Some(Settings::new_send()))
    ///     .memory_limit(16 << 20);
    /// # let _ = layer;
    /// ```
    pub fn memory_limit(self, bytes: usize) -> Self {
        self.config(|c| c.memory_limit = if bytes == 0 { usize::MAX } else { bytes })
    }

    /// What becomes of a strong `ETag` (default [`EtagPolicy::Weaken`]).
    pub fn etag(self, policy: EtagPolicy) -> Self {
        self.config(|c| c.etag = policy)
    }

    /// The encoding label used when neither a BOM, the `Content-Type`
    /// charset nor a `<meta charset>` names one (default `windows-1252`, as
    /// browsers in most locales). An unknown label makes every response skip.
    pub fn fallback_encoding(self, label: &str) -> Self {
        self.config(|c| c.fallback_encoding = label.to_string())
    }

    /// The counters of this layer (shared with every service it makes).
    pub fn stats(&self) -> Stats {
        self.config.stats.clone()
    }
}

impl<S, F> Layer<S> for HtmlRewriteLayer<F> {
    type Service = HtmlRewrite<S, F>;

    fn layer(&self, inner: S) -> Self::Service {
        HtmlRewrite::new(inner, self.factory.clone(), self.config.clone())
    }
}
