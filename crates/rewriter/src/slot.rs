//! Deferred content: [`Slot`], [`Fallback`], [`SlotError`].
//!
//! A handler may leave a decision for later: it asks its view for a slot
//! (`Element::defer_append` and the other `defer_*` methods) and the caller
//! fills it when the content is known ([`Rewriter::fill`](crate::Rewriter::fill),
//! [`Rewriter::slot_write`](crate::Rewriter::slot_write)) or gives it up
//! ([`Rewriter::cancel`](crate::Rewriter::cancel)). The machinery lives in
//! `deferred.rs`.

use std::error::Error;
use std::fmt;

use crate::EditError;

/// A place in the output whose content is decided later: the handle a
/// `defer_*` method of a handler's view returns, to be filled with
/// [`Rewriter::fill`](crate::Rewriter::fill) or
/// [`Rewriter::slot_write`](crate::Rewriter::slot_write) … [`Rewriter::slot_finish`](crate::Rewriter::slot_finish),
/// or given up with [`Rewriter::cancel`](crate::Rewriter::cancel).
///
/// Slots of one rewriter are numbered in the order handlers made them
/// (which is document order for slots of different elements). A slot is
/// only meaningful to the rewriter that made it.
///
/// # Example
/// ```
/// use std::{cell::RefCell, rc::Rc};
/// use htrewrite::{ContentType, Rewriter, Settings, Slot};
/// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
/// let made = slots.clone();
/// let settings = Settings::new().element("p", move |el| {
///     made.borrow_mut().push(el.defer_append());
///     Ok(())
/// });
/// let mut out = Vec::new();
/// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
/// rw.write(b"<p>a</p><p>b</p>")?;
/// let (first, second) = (slots.borrow()[0], slots.borrow()[1]);
/// assert!(first < second);
/// rw.fill(second, "2", ContentType::Text)?;
/// rw.fill(first, "1", ContentType::Text)?;
/// rw.end()?;
/// assert_eq!(out, b"<p>a1</p><p>b2</p>");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(pub(crate) u64);

impl Slot {
    /// The slot's number: 0 for the first slot a rewriter made, then 1, 2, …
    ///
    /// # Example
    /// ```
    /// use std::{cell::Cell, rc::Rc};
    /// use htrewrite::{Rewriter, Settings, Slot};
    /// let slot: Rc<Cell<Option<Slot>>> = Rc::default();
    /// let made = slot.clone();
    /// let settings = Settings::new().element("p", move |el| {
    ///     made.set(Some(el.defer_before()));
    ///     Ok(())
    /// });
    /// let mut rw = Rewriter::new(settings, |_: &[u8]| {})?;
    /// rw.write(b"<p>")?;
    /// assert_eq!(slot.get().unwrap().index(), 0);
    /// # Ok::<(), htrewrite::RewritingError>(())
    /// ```
    pub fn index(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slot {}", self.0)
    }
}

/// What a slot given up with [`Rewriter::cancel`](crate::Rewriter::cancel) becomes.
///
/// # Example
/// ```
/// use std::{cell::RefCell, rc::Rc};
/// use htrewrite::{Fallback, Rewriter, Settings, Slot};
/// let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
/// let made = slots.clone();
/// let settings = Settings::new().element("aside", move |el| {
///     made.borrow_mut().push(el.defer_replace());
///     Ok(())
/// });
/// let mut out = Vec::new();
/// let mut rw = Rewriter::new(settings, |c: &[u8]| out.extend_from_slice(c))?;
/// rw.write(b"<aside>ad</aside><aside>promo</aside>!")?;
/// let s = slots.borrow().clone();
/// rw.cancel(s[0], Fallback::KeepOriginal)?; // the fetch failed: keep the element
/// rw.cancel(s[1], Fallback::Empty)?; // a deferred removal, decided
/// rw.end()?;
/// assert_eq!(out, b"<aside>ad</aside>!");
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fallback {
    /// What the slot stands over stays as it is: the element for
    /// `defer_replace`, its content for `defer_inner_content`, the
    /// attribute's value for `defer_attribute` (empty for a new one);
    /// nothing for the insertion slots (`defer_before` …).
    KeepOriginal,
    /// The slot's place gets nothing: `defer_replace` removes the element,
    /// `defer_inner_content` empties it, `defer_attribute` leaves the value empty.
    Empty,
}

/// Why a slot operation was refused. The slot and the output are as they
/// were before the call: nothing of the refused call was taken.
///
/// # Example
/// ```
/// use std::{cell::Cell, rc::Rc};
/// use htrewrite::{ContentType, Rewriter, RewritingError, Settings, Slot, SlotErrorKind};
/// let slot: Rc<Cell<Option<Slot>>> = Rc::default();
/// let made = slot.clone();
/// let settings = Settings::new().element("p", move |el| {
///     made.set(Some(el.defer_append()));
///     Ok(())
/// });
/// let mut rw = Rewriter::new(settings, |_: &[u8]| {})?;
/// rw.write(b"<p>x")?;
/// let s = slot.get().unwrap();
/// rw.fill(s, "y", ContentType::Text)?;
/// let Err(RewritingError::Slot(e)) = rw.fill(s, "z", ContentType::Text) else { panic!() };
/// assert_eq!(e.kind(), SlotErrorKind::Resolved);
/// assert_eq!(e.slot(), s);
/// # Ok::<(), htrewrite::RewritingError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotError {
    pub(crate) slot: Slot,
    pub(crate) kind: SlotErrorKind,
    pub(crate) content: Option<EditError>,
}

/// The kind of a [`SlotError`].
///
/// # Example
/// ```
/// use htrewrite::SlotErrorKind;
/// assert_ne!(SlotErrorKind::Unknown, SlotErrorKind::Resolved);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SlotErrorKind {
    /// This rewriter made no such slot.
    Unknown,
    /// The slot was finished or cancelled already.
    Resolved,
    /// The content cannot go where the slot is ([`SlotError::content_error`]
    /// says why: text that would end a `<script>`, an unencodable
    /// character, U+0000 in text…). The slot stays open: fill it with other
    /// content or cancel it.
    Content,
}

impl SlotError {
    pub(crate) fn new(slot: Slot, kind: SlotErrorKind) -> SlotError {
        SlotError { slot, kind, content: None }
    }

    /// The slot.
    ///
    /// # Example
    /// See [`SlotError`].
    pub fn slot(&self) -> Slot {
        self.slot
    }

    /// What went wrong.
    ///
    /// # Example
    /// See [`SlotError`].
    pub fn kind(&self) -> SlotErrorKind {
        self.kind
    }

    /// For [`SlotErrorKind::Content`]: why the content was refused.
    ///
    /// # Example
    /// See [`SlotError`].
    pub fn content_error(&self) -> Option<&EditError> {
        self.content.as_ref()
    }
}

impl fmt::Display for SlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            SlotErrorKind::Unknown => write!(f, "{} was not made by this rewriter", self.slot),
            SlotErrorKind::Resolved => write!(f, "{} was finished or cancelled already", self.slot),
            SlotErrorKind::Content => match &self.content {
                Some(e) => write!(f, "content refused for {}: {e}", self.slot),
                None => write!(f, "content refused for {}", self.slot),
            },
        }
    }
}

impl Error for SlotError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.content.as_ref().map(|e| e as &(dyn Error + 'static))
    }
}
