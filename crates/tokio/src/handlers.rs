//! [`AsyncSettings`]: handlers whose content comes from a future.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use htrewrite::{Element, Fallback, HandlerKind, HandlerResult, Local, Sendable, Settings, Slot};

use crate::{BoxError, Content, Defer};

/// The default of [`AsyncSettings::concurrency`].
pub const DEFAULT_CONCURRENCY: usize = 16;

/// A [`HandlerKind`] whose async handlers' futures are boxed as
/// [`AsyncKind::ContentFuture`]: any future for [`Local`], `Send` ones for
/// [`Sendable`] (so that the rewrite runs on the multi-thread runtime).
///
/// # Example
/// ```
/// use htrewrite_tokio::{AsyncKind, Content};
/// fn boxed(f: impl Future<Output = Result<Content, htrewrite_tokio::BoxError>> + Send + 'static)
///     -> <htrewrite::Sendable as AsyncKind>::ContentFuture<'static> { Box::pin(f) }
/// let _f = boxed(async { Ok(Content::html("<b>x</b>")) });
/// ```
pub trait AsyncKind: HandlerKind {
    /// A boxed content future.
    type ContentFuture<'h>: Future<Output = Result<Content, BoxError>> + Unpin + 'h;
}

impl AsyncKind for Local {
    type ContentFuture<'h> = Pin<Box<dyn Future<Output = Result<Content, BoxError>> + 'h>>;
}

impl AsyncKind for Sendable {
    type ContentFuture<'h> = Pin<Box<dyn Future<Output = Result<Content, BoxError>> + Send + 'h>>;
}

/// The content futures handlers made and the driver has not started yet,
/// in the order the handlers made them (slot order), shared by the
/// handlers of one [`AsyncSettings`] and its driver.
#[doc(hidden)]
pub struct Jobs<'h, K: AsyncKind>(Arc<Mutex<Queue<'h, K>>>);

/// Slots with their content futures, in slot order.
type Queue<'h, K> = VecDeque<(Slot, <K as AsyncKind>::ContentFuture<'h>)>;

impl<K: AsyncKind> Clone for Jobs<'_, K> {
    fn clone(&self) -> Self {
        Jobs(self.0.clone())
    }
}

impl<'h, K: AsyncKind> Jobs<'h, K> {
    fn push(&self, slot: Slot, future: K::ContentFuture<'h>) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push_back((slot, future));
    }

    /// The next job to start.
    pub(crate) fn pop(&self) -> Option<(Slot, K::ContentFuture<'h>)> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).pop_front()
    }

    /// Whether no job waits to start.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).is_empty()
    }
}

/// An async element handler: a closure that reads the element and returns
/// the future of its content, or `None` to leave the element alone.
/// Implemented for such closures (`Send` ones with `Send` futures for
/// [`Sendable`]); users never implement it.
///
/// # Example
/// ```
/// use htrewrite::{Element, Local};
/// use htrewrite_tokio::{AsyncHandler, Content};
/// fn check<'h, H, F>(_: H) where H: AsyncHandler<'h, Local, F> {}
/// check(|el: &mut Element<'_, '_, Local>| el.get_attribute("src").map(|src| async move { Ok(Content::text(src)) }));
/// ```
pub trait AsyncHandler<'h, K: AsyncKind, Fut> {
    /// The element handler that runs `self`, makes the slot where `defer`
    /// says and queues the future in `jobs`.
    #[doc(hidden)]
    fn into_element_handler(self, defer: Defer, jobs: Jobs<'h, K>) -> K::ElementHandler<'h>;
}

/// The work of an async element handler on `el`.
fn run<'h, K, H, Fut>(
    handler: &mut H,
    el: &mut Element<'_, 'h, K>,
    defer: &Defer,
    jobs: &Jobs<'h, K>,
    boxed: fn(Fut) -> K::ContentFuture<'h>,
) -> HandlerResult
where
    K: AsyncKind,
    H: FnMut(&mut Element<'_, 'h, K>) -> Option<Fut>,
{
    if *defer == Defer::PrependParsed && !(el.has_start_tag() && el.can_have_content()) {
        // No place the parse has not passed: no future.
        return Ok(());
    }
    let Some(future) = handler(el) else { return Ok(()) };
    let slot = defer.make(el)?;
    jobs.push(slot, boxed(future));
    Ok(())
}

impl<'h, H, Fut> AsyncHandler<'h, Local, Fut> for H
where
    H: FnMut(&mut Element<'_, 'h, Local>) -> Option<Fut> + 'h,
    Fut: Future<Output = Result<Content, BoxError>> + 'h,
{
    fn into_element_handler(
        mut self,
        defer: Defer,
        jobs: Jobs<'h, Local>,
    ) -> <Local as HandlerKind>::ElementHandler<'h> {
        Box::new(move |el: &mut Element<'_, 'h, Local>| {
            run(&mut self, el, &defer, &jobs, |f| -> <Local as AsyncKind>::ContentFuture<'h> { Box::pin(f) })
        })
    }
}

impl<'h, H, Fut> AsyncHandler<'h, Sendable, Fut> for H
where
    H: FnMut(&mut Element<'_, 'h, Sendable>) -> Option<Fut> + Send + 'h,
    Fut: Future<Output = Result<Content, BoxError>> + Send + 'h,
{
    fn into_element_handler(
        mut self,
        defer: Defer,
        jobs: Jobs<'h, Sendable>,
    ) -> <Sendable as HandlerKind>::ElementHandler<'h> {
        Box::new(move |el: &mut Element<'_, 'h, Sendable>| {
            run(&mut self, el, &defer, &jobs, |f| -> <Sendable as AsyncKind>::ContentFuture<'h> { Box::pin(f) })
        })
    }
}

/// [`Settings`] with async handlers: each matched element gets a slot
/// ([`Defer`] says where) whose content a future produces, while the page
/// keeps streaming. Run them with [`rewrite_stream_async`](crate::rewrite_stream_async)
/// or an [`AsyncRewriter`](crate::AsyncRewriter).
///
/// - Up to [`AsyncSettings::concurrency`] futures run at once, started in
///   document order; the others wait.
/// - Output is in document order: bytes before the first pending slot go
///   out at once, bytes after it are held (at most
///   [`Settings::hold_limit`], then the input is not read further) until
///   it is filled. The first pending slot's streamed content is written
///   through as it arrives.
/// - A future that fails, a stream that fails, content the slot's place
///   cannot hold, or no content within [`AsyncSettings::timeout`]: the slot
///   becomes [`AsyncSettings::fallback`] and the rewrite reports an
///   [`Error`](crate::Error) of kind [`Content`](crate::ErrorKind::Content)
///   or [`Timeout`](crate::ErrorKind::Timeout), then goes on.
///
/// # Example
/// ```
/// use htrewrite::Settings;
/// use htrewrite_tokio::{AsyncSettings, Content, Defer};
/// use tokio_stream::StreamExt;
/// # tokio::runtime::Builder::new_current_thread().enable_time().build()?.block_on(async {
/// let settings = AsyncSettings::new(Settings::new()).element_async("esi-include", Defer::Replace, |el| {
///     let src = el.get_attribute("src")?;
///     Some(async move {
///         tokio::task::yield_now().await; // a fetch, in real life
///         Ok(Content::html(format!("<b>{src}</b>")))
///     })
/// });
/// let input = tokio_stream::iter([Ok::<_, std::io::Error>("<p><esi-include src=/user></esi-include>!")]);
/// let mut out = Vec::new();
/// let mut s = htrewrite_tokio::rewrite_stream_async(input, settings)?;
/// while let Some(chunk) = s.next().await {
///     out.extend_from_slice(&chunk?);
/// }
/// assert_eq!(out, b"<p><b>/user</b>!");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncSettings<'h, K: AsyncKind = Local> {
    pub(crate) settings: Settings<'h, K>,
    pub(crate) jobs: Jobs<'h, K>,
    pub(crate) concurrency: usize,
    pub(crate) timeout: Option<Duration>,
    pub(crate) fallback: Fallback,
}

impl<'h, K: AsyncKind> From<Settings<'h, K>> for AsyncSettings<'h, K> {
    fn from(settings: Settings<'h, K>) -> Self {
        AsyncSettings::new(settings)
    }
}

impl<'h, K: AsyncKind> AsyncSettings<'h, K> {
    /// Async settings over `settings` (its handlers and options stay):
    /// concurrency [`DEFAULT_CONCURRENCY`], no timeout, fallback
    /// [`Fallback::KeepOriginal`].
    ///
    /// # Example
    /// See [`AsyncSettings`].
    pub fn new(settings: Settings<'h, K>) -> Self {
        AsyncSettings {
            settings,
            jobs: Jobs(Arc::default()),
            concurrency: DEFAULT_CONCURRENCY,
            timeout: None,
            fallback: Fallback::KeepOriginal,
        }
    }

    /// Calls `handler` on each element matching `selector`, when it is
    /// opened (as [`Settings::element`]); when it returns a future, a slot
    /// is made where `defer` says and filled with the future's
    /// [`Content`] (a whole string, or streamed). The handler sees the
    /// element as a synchronous handler does (it may also edit it); the
    /// future must own what it needs.
    ///
    /// # Example
    /// ```
    /// use htrewrite::Settings;
    /// use htrewrite_tokio::{AsyncSettings, Content, Defer};
    /// use tokio_stream::StreamExt;
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let settings = AsyncSettings::new(Settings::new_send()).element_async("img", Defer::Attribute("src".into()), |el| {
    ///     let src = el.get_attribute("src")?;
    ///     Some(async move { Ok(Content::text(format!("/signed{src}?sig=1&k=2"))) })
    /// });
    /// let input = tokio_stream::iter([Ok::<_, std::io::Error>("<img src=/a.png>")]);
    /// let mut s = htrewrite_tokio::rewrite_stream_async(input, settings)?;
    /// let mut out = Vec::new();
    /// while let Some(chunk) = s.next().await {
    ///     out.extend_from_slice(&chunk?);
    /// }
    /// assert_eq!(out, b"<img src=\"/signed/a.png?sig=1&amp;k=2\">");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// None here; a bad selector is reported by the driver's constructor,
    /// and a [`Defer::Attribute`] whose name is invalid or an element with
    /// no start tag (for the defers that need one) fails as a handler error.
    pub fn element_async<H, Fut>(mut self, selector: &str, defer: Defer, handler: H) -> Self
    where
        H: FnMut(&mut Element<'_, 'h, K>) -> Option<Fut> + AsyncHandler<'h, K, Fut>,
    {
        let h = handler.into_element_handler(defer, self.jobs.clone());
        self.settings = self.settings.handler(htrewrite::Handler::Element(selector.to_string(), h));
        self
    }

    /// The most content futures running at once (at least 1; default
    /// [`DEFAULT_CONCURRENCY`]). Futures start in document order; a future
    /// and then its content stream count until the slot is filled.
    ///
    /// With 1, a slot that lands earlier in the document than one made
    /// before it (two async handlers on one element, `After` registered
    /// before `Before`) may wait behind it past [`Settings::hold_limit`];
    /// a [`timeout`](AsyncSettings::timeout) then ends the wait.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokio::AsyncSettings;
    /// let _one_at_a_time = AsyncSettings::new(htrewrite::Settings::new()).concurrency(1);
    /// ```
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// The longest a slot's content may take, from the start of its
    /// future to the end of its content (stream included); past it the
    /// slot gets the [`fallback`](AsyncSettings::fallback) (content streamed
    /// already stays) and an [`Error`](crate::Error) of kind
    /// [`Timeout`](crate::ErrorKind::Timeout) is reported. Default: none.
    /// Needs a Tokio runtime with time enabled.
    ///
    /// # Example
    /// ```
    /// use std::time::Duration;
    /// use htrewrite_tokio::AsyncSettings;
    /// let _s = AsyncSettings::new(htrewrite::Settings::new()).timeout(Duration::from_millis(250));
    /// ```
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// What a slot becomes when its content fails or times out (default
    /// [`Fallback::KeepOriginal`]: the element stays as it was).
    ///
    /// # Example
    /// ```
    /// use htrewrite::Fallback;
    /// use htrewrite_tokio::AsyncSettings;
    /// let _s = AsyncSettings::new(htrewrite::Settings::new()).fallback(Fallback::Empty);
    /// ```
    pub fn fallback(mut self, fallback: Fallback) -> Self {
        self.fallback = fallback;
        self
    }

    /// Changes the wrapped [`Settings`] (to add synchronous handlers or
    /// set options after async handlers were added).
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokio::AsyncSettings;
    /// let s = AsyncSettings::new(htrewrite::Settings::new())
    ///     .try_map_settings(|s| s.hold_limit(64 * 1024).encoding("latin1"))?;
    /// # let _ = s;
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    ///
    /// # Errors
    /// `f`'s error.
    pub fn try_map_settings<E>(self, f: impl FnOnce(Settings<'h, K>) -> Result<Settings<'h, K>, E>) -> Result<Self, E> {
        let AsyncSettings { settings, jobs, concurrency, timeout, fallback } = self;
        Ok(AsyncSettings { settings: f(settings)?, jobs, concurrency, timeout, fallback })
    }
}
