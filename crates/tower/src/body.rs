//! [`HtmlRewriteBody`]: the response body, rewritten frame by frame.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use htrewrite::Sendable;
use htrewrite_tokio::AsyncRewriter;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use crate::error::Error;
use crate::layer::{ErrorPolicy, Stats};

pin_project! {
    /// The body of a response from [`HtmlRewrite`](crate::HtmlRewrite):
    /// the inner body as it is, or rewritten.
    ///
    /// A rewritten body polls the inner body only when the rewriter takes
    /// input (its previous output was taken, and the output it holds after
    /// pending async content is under the hold limit), rewrites each data
    /// frame as it arrives (output leaves as soon as the rewriter releases
    /// it), ends the document at the end of the inner body or at its
    /// trailers, waits for the async handlers' content still pending, and
    /// sends the trailers after the last output. Frames other than data and
    /// trailers are dropped.
    ///
    /// When the inner body fails (the upstream closed mid-body), everything
    /// received still reaches the client before the error: the document ends
    /// there, as a browser ends a cut-off page (open elements end, end
    /// handlers run), its rewrite is sent, then the error.
    pub struct HtmlRewriteBody<B> {
        #[pin]
        inner: B,
        state: State,
    }
}

enum State {
    Pass,
    Rewrite(Box<Rewriting>),
    Done,
}

struct Rewriting {
    driver: AsyncRewriter<'static, Sendable>,
    trailers: Option<HeaderMap>,
    /// The inner body's failure, sent after the rewrite of what came before it.
    failed: Option<Error>,
    policy: ErrorPolicy,
    stats: Stats,
    /// Whether a pass-through failure was counted.
    reported: bool,
}

impl Rewriting {
    /// Counts and logs, once per body, a failure the rewriter passed through.
    fn check_passed_through(&mut self) {
        if self.reported {
            return;
        }
        if let Some(error) = self.driver.error() {
            self.reported = true;
            self.stats.count_passed_through();
            tracing::warn!(%error, "htrewrite: rewriting failed, the rest of the body passes through unchanged");
        }
    }

    /// What an error of the driver becomes: `None` to go on (async content
    /// that failed, under [`ErrorPolicy::PassThrough`]: the slot got its
    /// fallback), else the body's error.
    fn failure(&mut self, error: htrewrite_tokio::Error) -> Option<Error> {
        use htrewrite_tokio::ErrorKind as Kind;
        let content = matches!(error.kind(), Kind::Content | Kind::Timeout);
        if content {
            self.stats.count_content_failed();
            if self.policy == ErrorPolicy::PassThrough {
                tracing::warn!(%error, "htrewrite: async content failed, its slot got the fallback");
                return None;
            }
        }
        self.stats.count_aborted();
        tracing::error!(%error, "htrewrite: rewriting failed, body aborted");
        self.driver.stop();
        Some(if content { Error::content(error) } else { Error::rewrite(error.into_inner()) })
    }
}

impl<B> HtmlRewriteBody<B> {
    pub(crate) fn pass(inner: B) -> Self {
        HtmlRewriteBody { inner, state: State::Pass }
    }

    pub(crate) fn rewrite(
        inner: B,
        driver: AsyncRewriter<'static, Sendable>,
        policy: ErrorPolicy,
        stats: Stats,
    ) -> Self {
        let rewriting = Rewriting { driver, trailers: None, failed: None, policy, stats, reported: false };
        HtmlRewriteBody { inner, state: State::Rewrite(Box::new(rewriting)) }
    }

    /// Whether this body is being rewritten (`false`: passed through as it is).
    pub fn is_rewriting(&self) -> bool {
        !matches!(self.state, State::Pass)
    }
}

impl<B> Body for HtmlRewriteBody<B>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        let mut this = self.project();
        let r = match this.state {
            State::Pass => {
                return match ready!(this.inner.poll_frame(cx)) {
                    Some(Ok(frame)) => Poll::Ready(Some(Ok(frame.map_data(|mut d| d.copy_to_bytes(d.remaining()))))),
                    Some(Err(e)) => Poll::Ready(Some(Err(Error::body(e)))),
                    None => Poll::Ready(None),
                };
            }
            State::Done => return Poll::Ready(None),
            State::Rewrite(r) => r,
        };
        loop {
            match r.driver.poll_output(cx) {
                Poll::Ready(Some(Ok(out))) => {
                    r.check_passed_through();
                    return Poll::Ready(Some(Ok(Frame::data(out))));
                }
                Poll::Ready(Some(Err(error))) => match r.failure(error) {
                    None => continue,
                    Some(e) => {
                        *this.state = State::Done;
                        return Poll::Ready(Some(Err(e)));
                    }
                },
                Poll::Ready(None) => {
                    r.check_passed_through();
                    let trailers = r.trailers.take();
                    let failed = r.failed.take();
                    *this.state = State::Done;
                    if let Some(e) = failed {
                        return Poll::Ready(Some(Err(e)));
                    }
                    return Poll::Ready(trailers.map(|t| Ok(Frame::trailers(t))));
                }
                Poll::Pending if !r.driver.wants_input() => return Poll::Pending,
                Poll::Pending => {}
            }
            match ready!(this.inner.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(mut data) => r.driver.push_input(data.copy_to_bytes(data.remaining())),
                    Err(frame) => {
                        if let Ok(trailers) = frame.into_trailers() {
                            r.trailers = Some(trailers);
                            r.driver.end_input();
                        }
                    }
                },
                Some(Err(e)) => {
                    // What was received goes out first (see the type's docs).
                    r.failed = Some(Error::body(e));
                    r.driver.end_input();
                }
                None => r.driver.end_input(),
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.state {
            State::Pass => self.inner.is_end_stream(),
            State::Done => true,
            State::Rewrite(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.state {
            State::Pass => self.inner.size_hint(),
            _ => SizeHint::default(),
        }
    }
}
