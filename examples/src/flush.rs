//! [`FlushThenFail`]: a response body that lets the server send what it already has before
//! an error cuts the response.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::time::Sleep;

use crate::proxy::ProxyBody;

/// How long an error waits behind the data before it: [`FlushThenFail`].
pub const FLUSH_GRACE: Duration = Duration::from_millis(250);

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A response body whose error reaches the server [`FLUSH_GRACE`] after the inner body gave it.
///
/// hyper's HTTP/1 server buffers the frames a body yields and writes them when it flushes; a
/// body error ends the connection at once, and what was buffered but not yet written is lost
/// (the client of a proxy whose upstream closed mid-body got 8–57 KB of 122 KB). Holding the
/// error back lets the server flush: while this body is pending, hyper writes its buffer as the
/// client reads. A client that reads nothing for the whole grace can still miss the last bytes;
/// none is kept waiting longer.
pub struct FlushThenFail {
    inner: ProxyBody,
    failed: Option<(BoxError, Pin<Box<Sleep>>)>,
}

impl FlushThenFail {
    /// Wraps `inner`.
    pub fn new(inner: ProxyBody) -> FlushThenFail {
        FlushThenFail { inner, failed: None }
    }
}

impl Body for FlushThenFail {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        if this.failed.is_none() {
            match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
                Some(Err(e)) => this.failed = Some((e, Box::pin(tokio::time::sleep(FLUSH_GRACE)))),
                other => return Poll::Ready(other),
            }
        }
        let (_, grace) = this.failed.as_mut().expect("set above");
        ready!(grace.as_mut().poll(cx));
        let (error, _) = this.failed.take().expect("set above");
        Poll::Ready(Some(Err(error)))
    }

    fn is_end_stream(&self) -> bool {
        self.failed.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
