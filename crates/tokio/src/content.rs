//! [`Content`]: what an async handler's future produces; [`Defer`]: where it goes.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use htrewrite::{ContentType, EditError, Element, HandlerKind, Slot};

/// A boxed error of a content future or stream.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A stream of content chunks, boxed.
type ChunkStream = Pin<Box<dyn Stream<Item = Result<Bytes, BoxError>> + Send>>;

/// The content an async handler's future resolves to: a whole string, or a
/// stream of byte chunks (a sub-response's body) written into the slot as
/// they arrive, never collected. Either is of one [`ContentType`]: `Text`
/// is escaped for where the slot lands, `Html` goes as it is.
///
/// A stream's chunks are UTF-8 cut anywhere (even inside a character;
/// invalid sequences become U+FFFD). Streams are `Send + 'static` also for
/// [`Local`](htrewrite::Local) handlers.
///
/// # Example
/// ```
/// use bytes::Bytes;
/// use htrewrite_tokio::Content;
/// let whole = Content::html("<b>hi</b>");
/// let chunks = tokio_stream::iter([Ok::<_, std::io::Error>(Bytes::from("<b>h")), Ok(Bytes::from("i</b>"))]);
/// let streamed = Content::stream(chunks, htrewrite::ContentType::Html);
/// assert_eq!(whole.content_type(), streamed.content_type());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Content {
    pub(crate) body: Body,
    pub(crate) ty: ContentType,
}

/// A [`Content`]'s bytes.
pub(crate) enum Body {
    Whole(String),
    Stream(ChunkStream),
}

impl Content {
    /// `html`, inserted as it is ([`ContentType::Html`]).
    ///
    /// # Example
    /// See [`Content`].
    pub fn html(html: impl Into<String>) -> Content {
        Content { body: Body::Whole(html.into()), ty: ContentType::Html }
    }

    /// `text`, escaped for where the slot lands ([`ContentType::Text`]).
    ///
    /// # Example
    /// ```
    /// use htrewrite_tokio::Content;
    /// assert_eq!(Content::text("a < b").content_type(), htrewrite::ContentType::Text);
    /// ```
    pub fn text(text: impl Into<String>) -> Content {
        Content { body: Body::Whole(text.into()), ty: ContentType::Text }
    }

    /// Content streamed from `chunks`, each written into the slot as it
    /// arrives (through [`Rewriter::slot_write`](htrewrite::Rewriter::slot_write)).
    /// An error of the stream ends the content as a failure: what came
    /// stays (see [`Rewriter::cancel`](htrewrite::Rewriter::cancel)) and the
    /// rewrite reports an [`Error`](crate::Error) of kind
    /// [`Content`](crate::ErrorKind::Content).
    ///
    /// # Example
    /// See [`Content`].
    pub fn stream<S, B, E>(chunks: S, ty: ContentType) -> Content
    where
        S: Stream<Item = Result<B, E>> + Send + 'static,
        B: Into<Bytes>,
        E: Into<BoxError>,
    {
        Content { body: Body::Stream(Box::pin(Chunks { inner: chunks })), ty }
    }

    /// The content's type.
    ///
    /// # Example
    /// See [`Content`].
    pub fn content_type(&self) -> ContentType {
        self.ty
    }
}

impl fmt::Debug for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let body = match &self.body {
            Body::Whole(s) => format!("{} bytes", s.len()),
            Body::Stream(_) => "a stream".to_string(),
        };
        f.debug_struct("Content").field("body", &body).field("ty", &self.ty).finish()
    }
}

pin_project_lite::pin_project! {
    /// A stream of `Result<B, E>` as one of `Result<Bytes, BoxError>`.
    struct Chunks<S> {
        #[pin]
        inner: S,
    }
}

impl<S, B, E> Stream for Chunks<S>
where
    S: Stream<Item = Result<B, E>>,
    B: Into<Bytes>,
    E: Into<BoxError>,
{
    type Item = Result<Bytes, BoxError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.project().inner.poll_next(cx).map(|item| item.map(|r| r.map(Into::into).map_err(Into::into)))
    }
}

/// Where an async handler's content goes, relative to its element: the
/// `defer_*` method of [`Element`] the handler's slot is made with.
///
/// # Example
/// ```
/// use htrewrite_tokio::Defer;
/// assert_ne!(Defer::Replace, Defer::Append);
/// let _signed = Defer::Attribute("src".into());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Defer {
    /// Before the element ([`Element::defer_before`]).
    Before,
    /// After the element ([`Element::defer_after`]).
    After,
    /// At the start of its content ([`Element::defer_prepend`]).
    Prepend,
    /// At the end of its content ([`Element::defer_append`]).
    Append,
    /// Instead of its content ([`Element::defer_inner_content`]).
    InnerContent,
    /// Instead of the element ([`Element::defer_replace`]).
    Replace,
    /// As the value of this attribute ([`Element::defer_attribute`]).
    Attribute(String),
    /// At the start of its content, parsed as part of the page
    /// ([`Element::defer_prepend_parsed`]): the page's rules apply inside
    /// it, and the page waits (is not read further) until it is finished.
    /// Elements without a start tag in the input, and elements that cannot
    /// have content, get no future (the handler is not called).
    PrependParsed,
}

impl Defer {
    /// Makes the slot on `el`.
    pub(crate) fn make<K: HandlerKind>(&self, el: &mut Element<'_, '_, K>) -> Result<Slot, EditError> {
        Ok(match self {
            Defer::Before => el.defer_before(),
            Defer::After => el.defer_after(),
            Defer::Prepend => el.defer_prepend(),
            Defer::Append => el.defer_append(),
            Defer::InnerContent => el.defer_inner_content(),
            Defer::Replace => el.defer_replace(),
            Defer::Attribute(name) => el.defer_attribute(name)?,
            Defer::PrependParsed => el.defer_prepend_parsed()?,
        })
    }
}
