//! [`AsyncRewriter`]: a rewriter and the content futures of its async handlers, driven together.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, Bytes};
use futures_core::Stream;
use htrewrite::{ContentType, Fallback, Local, Rewriter, RewritingError, Slot};
use tokio::time::Sleep;

use crate::content::{Body, BoxError};
use crate::handlers::{AsyncKind, AsyncSettings, Jobs};
use crate::{BytesSink, Error, MAX_PIECE};

/// A slot's content on its way.
enum Step<'h, K: AsyncKind> {
    /// The handler's future has not resolved.
    Waiting(K::ContentFuture<'h>),
    /// Streamed content: the chunk not taken yet (the slot is past the
    /// hold limit), then the rest.
    Streaming { chunks: Pin<Box<dyn Stream<Item = Result<Bytes, BoxError>> + Send>>, ty: ContentType, left: Bytes },
}

/// A running job: a slot, its content, its deadline.
struct Job<'h, K: AsyncKind> {
    slot: Slot,
    step: Step<'h, K>,
    deadline: Option<Pin<Box<Sleep>>>,
}

/// What polling a job did.
enum Polled {
    /// Nothing (its waker is registered, or it waits for room).
    Idle,
    /// Content went into the rewriter.
    Progress,
    /// The slot was filled.
    Done,
    /// The content failed: the slot gets the fallback.
    Failed(Error),
}

/// A [`Rewriter`] together with the content futures of its async handlers
/// ([`AsyncSettings`]): the state machine behind
/// [`rewrite_stream_async`](crate::rewrite_stream_async), for adapters that
/// get their input some other way (the tower layer's body).
///
/// Feed it with [`AsyncRewriter::push_input`] when
/// [`AsyncRewriter::wants_input`] says so, call [`AsyncRewriter::end_input`]
/// at the end of input, and take output with [`AsyncRewriter::poll_output`],
/// which also runs the content futures (at most
/// [`AsyncSettings::concurrency`] at once, started in document order) and
/// writes their content into their slots. Input is taken only while the
/// output held after pending slots is under [`Settings::hold_limit`](htrewrite::Settings::hold_limit):
/// past it `wants_input` stays false until slots are filled
/// (back-pressure). At most one piece of input ([`MAX_PIECE`]) is
/// rewritten per output item.
///
/// # Example
/// ```
/// use std::future::poll_fn;
/// use std::task::Poll;
/// use htrewrite::Settings;
/// use htrewrite_tokio::{AsyncRewriter, AsyncSettings, Content, Defer};
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let settings = AsyncSettings::new(Settings::new())
///     .element_async("p", Defer::Append, |_| Some(async { Ok(Content::text("!")) }));
/// let mut rw = AsyncRewriter::new(settings)?;
/// let mut input = ["<p>a", "</p><p>b"].into_iter();
/// let mut out = Vec::new();
/// let next = |cx: &mut std::task::Context<'_>, rw: &mut AsyncRewriter<'_>| loop {
///     if rw.wants_input() {
///         match input.next() {
///             Some(chunk) => rw.push_input(chunk.into()),
///             None => rw.end_input(),
///         }
///     }
///     match rw.poll_output(cx) {
///         Poll::Pending if rw.wants_input() => continue,
///         polled => return polled,
///     }
/// };
/// let mut next = next;
/// while let Some(chunk) = poll_fn(|cx| next(cx, &mut rw)).await {
///     out.extend_from_slice(&chunk?);
/// }
/// assert_eq!(out, b"<p>a!</p><p>b!");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// See [`AsyncRewriter::poll_output`].
pub struct AsyncRewriter<'h, K: AsyncKind = Local> {
    /// `None` after the end or a failure.
    rewriter: Option<Rewriter<'h, BytesSink, K>>,
    jobs: Jobs<'h, K>,
    running: Vec<Job<'h, K>>,
    concurrency: usize,
    timeout: Option<Duration>,
    fallback: Fallback,
    /// Input pushed and not taken yet.
    input: Bytes,
    /// Whether `end_input` was called, and whether the rewriter was told.
    input_ended: bool,
    input_finished: bool,
    /// Content failures to report.
    errors: VecDeque<Error>,
    /// The output of `end`, or made before a failure: yielded before the errors.
    tail: Bytes,
    /// The failure kept under `OnError::PassThrough`, after the end.
    kept: Option<RewritingError>,
}

impl<'h, K: AsyncKind> AsyncRewriter<'h, K> {
    /// A rewriter with `settings`.
    ///
    /// # Example
    /// See [`AsyncRewriter`].
    ///
    /// # Errors
    /// As [`Rewriter::new`] (a selector that does not parse).
    pub fn new(settings: AsyncSettings<'h, K>) -> Result<Self, RewritingError> {
        let AsyncSettings { settings, jobs, concurrency, timeout, fallback } = settings;
        Ok(AsyncRewriter {
            rewriter: Some(Rewriter::new(settings, BytesSink::default())?),
            jobs,
            running: Vec::new(),
            concurrency,
            timeout,
            fallback,
            input: Bytes::new(),
            input_ended: false,
            input_finished: false,
            errors: VecDeque::new(),
            tail: Bytes::new(),
            kept: None,
        })
    }

    /// Whether it takes input now: the previous input was all taken, the
    /// input did not end, and the rewrite did not end or fail.
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokio::{AsyncRewriter, AsyncSettings};
    /// let mut rw = AsyncRewriter::new(AsyncSettings::new(htrewrite::Settings::new()))?;
    /// assert!(rw.wants_input());
    /// rw.push_input("<p>".into());
    /// assert!(!rw.wants_input()); // until poll_output takes it
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn wants_input(&self) -> bool {
        self.rewriter.is_some() && self.input.is_empty() && !self.input_ended
    }

    /// Gives the next chunk of input (taken by [`AsyncRewriter::poll_output`]).
    /// Call it only when [`AsyncRewriter::wants_input`]: input pushed
    /// before the previous was taken is appended to it (copied).
    ///
    /// # Example
    /// See [`AsyncRewriter::wants_input`].
    pub fn push_input(&mut self, chunk: Bytes) {
        if self.input.is_empty() {
            self.input = chunk;
        } else {
            let mut joined = Vec::with_capacity(self.input.len() + chunk.len());
            joined.extend_from_slice(&self.input);
            joined.extend_from_slice(&chunk);
            self.input = joined.into();
        }
    }

    /// Ends the input: once it is all taken, the document ends
    /// ([`Rewriter::finish_input`]), and once every slot is filled the
    /// rewrite ends ([`Rewriter::end`]) and [`AsyncRewriter::poll_output`]
    /// yields the rest, then `None`.
    ///
    /// # Example
    /// ```
    /// use std::future::poll_fn;
    /// use htrewrite_tokio::{AsyncRewriter, AsyncSettings};
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let mut rw = AsyncRewriter::new(AsyncSettings::new(htrewrite::Settings::new()))?;
    /// rw.push_input("<p>hi".into());
    /// rw.end_input();
    /// let mut out = Vec::new();
    /// while let Some(chunk) = poll_fn(|cx| rw.poll_output(cx)).await {
    ///     out.extend_from_slice(&chunk?);
    /// }
    /// assert_eq!(out, b"<p>hi");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn end_input(&mut self) {
        self.input_ended = true;
    }

    /// Stops: drops the rewriter, the running content futures and output
    /// not taken yet; [`AsyncRewriter::poll_output`] yields `None` from now
    /// on.
    ///
    /// # Example
    /// ```
    /// use std::future::poll_fn;
    /// use htrewrite_tokio::{AsyncRewriter, AsyncSettings};
    /// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
    /// let mut rw = AsyncRewriter::new(AsyncSettings::new(htrewrite::Settings::new()))?;
    /// rw.stop();
    /// assert!(poll_fn(|cx| rw.poll_output(cx)).await.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # })?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stop(&mut self) {
        self.halt();
        self.tail = Bytes::new();
    }

    /// Drops the rewriter and the content futures; the output not taken.
    fn halt(&mut self) -> Bytes {
        self.running.clear();
        while self.jobs.pop().is_some() {}
        self.rewriter.take().map(|mut rw| rw.sink_mut().take()).unwrap_or_default()
    }

    /// The rewriter, until the end or a failure (e.g. for
    /// [`Rewriter::error`] under [`OnError::PassThrough`](htrewrite::OnError::PassThrough)).
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokio::{AsyncRewriter, AsyncSettings};
    /// let rw = AsyncRewriter::new(AsyncSettings::new(htrewrite::Settings::new()))?;
    /// assert!(rw.rewriter().is_some_and(|r| r.error().is_none()));
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn rewriter(&self) -> Option<&Rewriter<'h, BytesSink, K>> {
        self.rewriter.as_ref()
    }

    /// The failure kept under [`OnError::PassThrough`](htrewrite::OnError::PassThrough):
    /// [`Rewriter::error`] while the rewrite runs, the error
    /// [`Rewriter::end_with_error`] returned after its end.
    ///
    /// # Example
    /// See [`AsyncRewriter::rewriter`].
    pub fn error(&self) -> Option<&RewritingError> {
        match &self.rewriter {
            Some(rw) => rw.error(),
            None => self.kept.as_ref(),
        }
    }

    /// Rewrites what it can and returns the next output: `Ready(Some(Ok))`
    /// with rewritten bytes; `Ready(Some(Err))` with an [`Error`] of kind
    /// [`Content`](crate::ErrorKind::Content) or
    /// [`Timeout`](crate::ErrorKind::Timeout) (the slot got the fallback;
    /// the rewrite goes on) or [`Rewrite`](crate::ErrorKind::Rewrite) (the
    /// rewrite failed and ends: the output made before the failure comes
    /// first, up to the first slot still pending, whose held output is
    /// dropped with the running futures); `Ready(None)` at the end; `Pending` when
    /// it waits for input ([`AsyncRewriter::wants_input`]: no waker is
    /// registered for that, the caller's input is) or for content futures
    /// (whose wakers are registered).
    ///
    /// # Example
    /// See [`AsyncRewriter::end_input`].
    ///
    /// # Errors
    /// In the items, as above. A rewrite that ends with a slot no handler
    /// of these settings made still unfilled (one a synchronous handler
    /// deferred) fails with [`RewritingError::UnfilledSlots`], so does one
    /// whose input waits for such a slot.
    pub fn poll_output(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Error>>> {
        loop {
            let Some(rw) = self.rewriter.as_mut() else {
                let tail = std::mem::take(&mut self.tail);
                if !tail.is_empty() {
                    return Poll::Ready(Some(Ok(tail)));
                }
                return Poll::Ready(self.errors.pop_front().map(Err));
            };
            let out = rw.sink_mut().take();
            if !out.is_empty() {
                return Poll::Ready(Some(Ok(out)));
            }
            if let Some(e) = self.errors.pop_front() {
                return Poll::Ready(Some(Err(e)));
            }
            match self.step(cx) {
                Ok(true) => continue,
                Ok(false) => return Poll::Pending,
                Err(e) => {
                    // The output made before the failure goes out first.
                    self.tail = self.halt();
                    self.errors.push_back(Error::rewrite(e));
                }
            }
        }
    }

    /// One round of work; whether anything happened (else every source of
    /// progress has its waker registered, or needs input).
    fn step(&mut self, cx: &mut Context<'_>) -> Result<bool, RewritingError> {
        self.start_jobs();
        if self.poll_jobs(cx)? {
            return Ok(true);
        }
        let rw = self.rewriter.as_mut().expect("checked by poll_output");
        if !self.input.is_empty() {
            let piece = self.input.len().min(MAX_PIECE);
            let n = rw.write_some(&self.input[..piece])?;
            if n > 0 {
                self.input.advance(n);
                return Ok(true);
            }
            if self.running.is_empty() && self.jobs.is_empty() {
                // Held for a slot no async handler fills: it never will be.
                return Err(RewritingError::UnfilledSlots(rw.pending_slots()));
            }
            return Ok(false);
        }
        if !self.input_ended {
            return Ok(false);
        }
        if !self.input_finished {
            rw.finish_input()?;
            self.input_finished = true;
            return Ok(true);
        }
        if !self.running.is_empty() || !self.jobs.is_empty() {
            return Ok(false);
        }
        let rw = self.rewriter.take().expect("checked by poll_output");
        let (mut sink, kept) = rw.end_with_error()?;
        self.tail = sink.take();
        self.kept = kept;
        Ok(true)
    }

    /// Starts jobs handlers queued, up to the concurrency.
    fn start_jobs(&mut self) {
        while self.running.len() < self.concurrency {
            let Some((slot, future)) = self.jobs.pop() else { return };
            let deadline = self.timeout.map(|d| Box::pin(tokio::time::sleep(d)));
            self.running.push(Job { slot, step: Step::Waiting(future), deadline });
        }
    }

    /// Polls every running job once; whether any made progress.
    fn poll_jobs(&mut self, cx: &mut Context<'_>) -> Result<bool, RewritingError> {
        let rw = self.rewriter.as_mut().expect("checked by poll_output");
        let mut progress = false;
        let mut i = 0;
        while i < self.running.len() {
            let job = &mut self.running[i];
            let expired = job.deadline.as_mut().is_some_and(|d| d.as_mut().poll(cx).is_ready());
            let polled = if expired {
                Polled::Failed(Error::timeout(job.slot, self.timeout.unwrap_or_default()))
            } else {
                job.poll(rw, cx)?
            };
            match polled {
                Polled::Idle => i += 1,
                Polled::Progress => {
                    progress = true;
                    i += 1;
                }
                Polled::Done => {
                    self.running.remove(i);
                    progress = true;
                }
                Polled::Failed(error) => {
                    let job = self.running.remove(i);
                    rw.cancel(job.slot, self.fallback)?;
                    self.errors.push_back(error);
                    progress = true;
                }
            }
        }
        Ok(progress)
    }
}

impl<K: AsyncKind> Job<'_, K> {
    /// Moves the job on: polls its future or stream, writes content.
    fn poll(&mut self, rw: &mut Rewriter<'_, BytesSink, K>, cx: &mut Context<'_>) -> Result<Polled, RewritingError> {
        let slot = self.slot;
        match &mut self.step {
            Step::Waiting(future) => match Pin::new(future).poll(cx) {
                Poll::Pending => Ok(Polled::Idle),
                Poll::Ready(Err(e)) => Ok(Polled::Failed(Error::content(slot, e))),
                Poll::Ready(Ok(content)) => match content.body {
                    Body::Whole(text) => refused(slot, rw.fill(slot, &text, content.ty).map(|()| Polled::Done)),
                    Body::Stream(chunks) => {
                        self.step = Step::Streaming { chunks, ty: content.ty, left: Bytes::new() };
                        Ok(Polled::Progress)
                    }
                },
            },
            Step::Streaming { chunks, ty, left } => {
                if !left.is_empty() {
                    let n = match rw.slot_write(slot, left, *ty) {
                        Ok(n) => n,
                        Err(e) => return refused(slot, Err(e)),
                    };
                    left.advance(n);
                    return Ok(if n > 0 { Polled::Progress } else { Polled::Idle });
                }
                match chunks.as_mut().poll_next(cx) {
                    Poll::Pending => Ok(Polled::Idle),
                    Poll::Ready(Some(Ok(chunk))) => {
                        *left = chunk;
                        Ok(Polled::Progress)
                    }
                    Poll::Ready(Some(Err(e))) => Ok(Polled::Failed(Error::content(slot, e))),
                    Poll::Ready(None) => refused(slot, rw.slot_finish(slot).map(|()| Polled::Done)),
                }
            }
        }
    }
}

/// A slot operation's result: a refusal of the content (the slot stays
/// open) is the content's failure; other errors fail the rewrite.
fn refused(slot: Slot, result: Result<Polled, RewritingError>) -> Result<Polled, RewritingError> {
    match result {
        Err(RewritingError::Slot(e)) => Ok(Polled::Failed(Error::content(slot, e))),
        other => other,
    }
}
