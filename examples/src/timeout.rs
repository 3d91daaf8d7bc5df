//! [`IdleTimeout`]: an upstream response body that fails when the upstream stalls.
//!
//! # Why not `tower_http::timeout::TimeoutBody`
//!
//! tower-http's `TimeoutBody` (0.6.11, `src/timeout/body.rs`) also bounds the time between two
//! frames, and also only from the first poll after a frame, so a downstream that stops polling
//! right after a frame is not timed. It is not the same on four points, and the first one is
//! the reason this type stays:
//!
//! 1. **It checks its deadline before it polls the inner body.** A frame that reached the
//!    upstream body in time but is collected after the deadline is lost and the response fails.
//!    That happens when the body was polled (pending), the frame then arrived, and the
//!    downstream did not poll again within the idle time: backpressure from a slow client
//!    (hyper polls the response body only while it can write to the client's socket). This type
//!    polls the inner body first and fails only if the upstream had nothing for `idle`, so a
//!    slow reader downstream is never taken for a stalled upstream
//!    (`tests::a_frame_collected_late_is_delivered`; the same sequence gives `TimeoutBody`'s
//!    `TimeoutError`).
//! 2. It forwards neither `size_hint` nor `is_end_stream` (it keeps the defaults: size
//!    unknown, never ended), which hyper and tower-http's compression predicate read; this type
//!    forwards both (`tests::size_hint_and_end_are_forwarded`).
//! 3. After its error it returns the same error on every later poll; this type ends (`None`)
//!    (`tests::silence_for_the_idle_time_is_an_error_then_the_end`).
//! 4. Its error, `TimeoutError`, carries nothing; [`UpstreamStalled`] names the idle time, and
//!    the stall is logged (`tracing::warn!`) where it is detected.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// The error of an [`IdleTimeout`] body whose upstream sent nothing for the idle time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamStalled {
    /// The idle time that passed.
    pub idle: Duration,
}

impl fmt::Display for UpstreamStalled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "upstream sent nothing for {:?}", self.idle)
    }
}

impl std::error::Error for UpstreamStalled {}

/// A body that ends with [`UpstreamStalled`] when its inner body has no
/// frame for `idle` while it is being waited for.
///
/// The clock runs only while a poll waits on the inner body, so a slow
/// reader downstream (backpressure: the body is not polled) is never
/// mistaken for a stalled upstream. After the error the body is over
/// (`None`); dropping it drops the inner body, which closes the upstream
/// connection.
pub struct IdleTimeout<B> {
    inner: B,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
    /// Whether the last poll of `inner` was pending (the timer is armed).
    waiting: bool,
    stalled: bool,
}

impl<B> IdleTimeout<B> {
    /// `inner`, failing after `idle` without a frame.
    ///
    /// # Panics
    /// Outside a tokio runtime with the time driver enabled.
    pub fn new(inner: B, idle: Duration) -> Self {
        IdleTimeout { inner, idle, timer: Box::pin(tokio::time::sleep(idle)), waiting: false, stalled: false }
    }
}

impl<B> Body for IdleTimeout<B>
where
    B: Body + Unpin,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Data = B::Data;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, Self::Error>>> {
        let this = self.get_mut();
        if this.stalled {
            return Poll::Ready(None);
        }
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            this.waiting = false;
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if !this.waiting {
            this.waiting = true;
            this.timer.as_mut().reset(Instant::now() + this.idle);
        }
        if this.timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        this.stalled = true;
        tracing::warn!(idle = ?this.idle, "upstream stalled mid-body: the response ends with an error");
        Poll::Ready(Some(Err(Box::new(UpstreamStalled { idle: this.idle }))))
    }

    fn is_end_stream(&self) -> bool {
        self.stalled || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::task::Waker;

    use bytes::Bytes;
    use http_body_util::Full;
    use tokio::sync::mpsc;

    use super::*;

    /// An upstream body whose frames the test sends.
    struct Upstream(mpsc::UnboundedReceiver<&'static str>);

    impl Body for Upstream {
        type Data = Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
            self.0.poll_recv(cx).map(|text| text.map(|t| Ok(Frame::data(Bytes::from_static(t.as_bytes())))))
        }
    }

    const IDLE: Duration = Duration::from_millis(50);

    /// `body` and the sender of its upstream's frames.
    fn body() -> (mpsc::UnboundedSender<&'static str>, IdleTimeout<Upstream>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (tx, IdleTimeout::new(Upstream(rx), IDLE))
    }

    /// What one poll of a body gives.
    type Polled<B> = Poll<Option<Result<Frame<<B as Body>::Data>, <B as Body>::Error>>>;

    /// One poll, as a downstream that is woken would make it.
    fn poll<B: Body + Unpin>(body: &mut B) -> Polled<B> {
        Pin::new(body).poll_frame(&mut Context::from_waker(Waker::noop()))
    }

    /// The data of a polled frame.
    ///
    /// # Panics
    /// If the poll gave anything else.
    fn data(poll: Polled<IdleTimeout<Upstream>>) -> Bytes {
        match poll {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().expect("a data frame"),
            other => panic!("want a data frame, got {other:?}"),
        }
    }

    /// Point 1 of the module docs: polled (pending), the frame arrives at once, the downstream
    /// polls again only after three idle times (backpressure): the frame, not an error.
    #[tokio::test]
    async fn a_frame_collected_late_is_delivered() {
        let (tx, mut body) = body();
        assert!(poll(&mut body).is_pending());
        tx.send("in time").unwrap();
        tokio::time::sleep(IDLE * 3).await;
        assert_eq!(data(poll(&mut body)), "in time");
        assert!(poll(&mut body).is_pending(), "the clock starts again: no error yet");
    }

    /// A downstream that pauses after a frame, without polling, is not timed.
    #[tokio::test]
    async fn a_pause_after_a_frame_is_not_timed() {
        let (tx, mut body) = body();
        tx.send("one").unwrap();
        assert_eq!(data(poll(&mut body)), "one");
        tokio::time::sleep(IDLE * 3).await;
        assert!(poll(&mut body).is_pending());
        tx.send("two").unwrap();
        assert_eq!(data(poll(&mut body)), "two");
    }

    /// Point 3: an upstream silent for the idle time while polled: [`UpstreamStalled`], then
    /// the end of the body.
    #[tokio::test]
    async fn silence_for_the_idle_time_is_an_error_then_the_end() {
        let (_tx, mut body) = body();
        assert!(poll(&mut body).is_pending());
        tokio::time::sleep(IDLE * 2).await;
        let error = match poll(&mut body) {
            Poll::Ready(Some(Err(e))) => e,
            other => panic!("want the stall error, got {other:?}"),
        };
        assert_eq!(error.downcast_ref::<UpstreamStalled>(), Some(&UpstreamStalled { idle: IDLE }));
        assert_eq!(error.to_string(), "upstream sent nothing for 50ms");
        assert!(body.is_end_stream());
        assert!(matches!(poll(&mut body), Poll::Ready(None)));
    }

    /// Point 2: the inner body's size hint and end.
    #[tokio::test]
    async fn size_hint_and_end_are_forwarded() {
        let mut body = IdleTimeout::new(Full::new(Bytes::from_static(b"abc")), IDLE);
        assert_eq!(body.size_hint().exact(), Some(3));
        assert!(!body.is_end_stream());
        assert_eq!(data(poll(&mut body)), "abc");
        assert!(body.is_end_stream());
        assert_eq!(body.size_hint().exact(), Some(0));
    }
}
