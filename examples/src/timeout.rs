//! [`IdleTimeout`]: an upstream response body that fails when the upstream stalls.

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
