//! [`HtmlRewriteBody`]: the response body, rewritten frame by frame.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use htrewrite::{Rewriter, Sendable};
use htrewrite_tokio::BytesSink;
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use pin_project_lite::pin_project;

use crate::error::Error;
use crate::layer::{ErrorPolicy, Stats};

pin_project! {
    /// The body of a response from [`HtmlRewrite`](crate::HtmlRewrite):
    /// the inner body as it is, or rewritten.
    ///
    /// A rewritten body polls the inner body only when its previous output
    /// was taken, rewrites each data frame as it arrives (output leaves as
    /// soon as the rewriter releases it), ends the document at the end of the
    /// inner body or at its trailers, and sends the trailers after the last
    /// output. Frames other than data and trailers are dropped.
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
    /// `None` once the document ended.
    rewriter: Option<Rewriter<'static, BytesSink, Sendable>>,
    /// The output of `end()`.
    tail: Bytes,
    trailers: Option<HeaderMap>,
    /// The inner body's failure, sent after the rewrite of what came before it.
    failed: Option<Error>,
    policy: ErrorPolicy,
    stats: Stats,
    /// Whether a pass-through failure was counted.
    reported: bool,
}

impl Rewriting {
    /// Counts and logs a failure the rewriter passed through.
    fn check_passed_through(&mut self) {
        if let Some(error) = self.rewriter.as_ref().and_then(|rw| rw.error()) {
            Self::report_passed_through(&mut self.reported, &self.stats, error);
        }
    }

    /// Counts and logs `error` once per body.
    fn report_passed_through(reported: &mut bool, stats: &Stats, error: &htrewrite::RewritingError) {
        if *reported {
            return;
        }
        *reported = true;
        stats.count_passed_through();
        tracing::warn!(%error, "htrewrite: rewriting failed, the rest of the body passes through unchanged");
    }

    fn abort(&mut self, error: htrewrite::RewritingError) -> Error {
        debug_assert_eq!(self.policy, ErrorPolicy::Abort);
        self.stats.count_aborted();
        tracing::error!(%error, "htrewrite: rewriting failed, body aborted");
        Error::rewrite(error)
    }

    fn feed(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let rw = self.rewriter.as_mut().expect("fed after end");
        if let Err(e) = rw.write(chunk) {
            return Err(self.abort(e));
        }
        self.check_passed_through();
        Ok(())
    }

    fn end(&mut self) -> Result<(), Error> {
        let Some(rw) = self.rewriter.take() else { return Ok(()) };
        // `end_with_error`, not `end`: a failure kept under PassThrough (also one in
        // the end itself, e.g. a document-end handler) is counted too.
        match rw.end_with_error() {
            Ok((mut sink, error)) => {
                self.tail = sink.take();
                if let Some(error) = error {
                    Self::report_passed_through(&mut self.reported, &self.stats, &error);
                }
                Ok(())
            }
            Err(e) => Err(self.abort(e)),
        }
    }

    /// Output ready to send, if any.
    fn output(&mut self) -> Option<Bytes> {
        let out = match &mut self.rewriter {
            Some(rw) => rw.sink_mut().take(),
            None => std::mem::take(&mut self.tail),
        };
        (!out.is_empty()).then_some(out)
    }
}

impl<B> HtmlRewriteBody<B> {
    pub(crate) fn pass(inner: B) -> Self {
        HtmlRewriteBody { inner, state: State::Pass }
    }

    pub(crate) fn rewrite(
        inner: B,
        rewriter: Rewriter<'static, BytesSink, Sendable>,
        policy: ErrorPolicy,
        stats: Stats,
    ) -> Self {
        let rewriting = Rewriting {
            rewriter: Some(rewriter),
            tail: Bytes::new(),
            trailers: None,
            failed: None,
            policy,
            stats,
            reported: false,
        };
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
            if let Some(out) = r.output() {
                return Poll::Ready(Some(Ok(Frame::data(out))));
            }
            if r.rewriter.is_none() {
                let trailers = r.trailers.take();
                let failed = r.failed.take();
                *this.state = State::Done;
                if let Some(e) = failed {
                    return Poll::Ready(Some(Err(e)));
                }
                return Poll::Ready(trailers.map(|t| Ok(Frame::trailers(t))));
            }
            let step = match ready!(this.inner.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(mut data) => {
                        let data = data.copy_to_bytes(data.remaining());
                        r.feed(&data)
                    }
                    Err(frame) => match frame.into_trailers() {
                        Ok(trailers) => {
                            r.trailers = Some(trailers);
                            r.end()
                        }
                        Err(_unknown) => Ok(()),
                    },
                },
                Some(Err(e)) => {
                    // What was received goes out first (see the type's docs).
                    r.failed = Some(Error::body(e));
                    r.end()
                }
                None => r.end(),
            };
            if let Err(e) = step {
                *this.state = State::Done;
                return Poll::Ready(Some(Err(e)));
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
