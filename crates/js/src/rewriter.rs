//! [`RawRewriter`]: the core rewriter behind `index.js`'s `HTMLRewriter`
//! and `StreamRewriter`, and the selector checks of `.on`.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;

use htrewrite::{ContentType, Fallback, Local, OutputSink, Rewriter, RewritingError, Selectors, Settings, Slot};
use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::handlers::Shared;
use crate::handlers::{self, Registration};

/// Output collected during one `write` or `end`, handed to JavaScript in
/// one piece (one crossing per call, not per token).
#[derive(Debug, Default)]
struct Buffer(Vec<u8>);

impl OutputSink for Buffer {
    fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.0.extend_from_slice(chunk);
        Ok(())
    }
}

/// Checks that `selector` parses and is supported.
///
/// # Errors
/// A `TypeError` naming the selector and why (`invalid selector "p[": …`).
#[wasm_bindgen(js_name = validateSelector)]
pub fn validate_selector(selector: &str) -> Result<(), JsValue> {
    Selectors::new([selector]).map(drop).map_err(type_error)
}

/// Whether `label` names an encoding (WHATWG labels: `utf-8`, `latin1`, `shift_jis`, …).
#[wasm_bindgen(js_name = isEncodingLabel)]
pub fn is_encoding_label(label: &str) -> bool {
    htrewrite::encoding::encoding_for_label(label).is_some()
}

/// A selector list compiled once, for many [`RawRewriter`]s.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CompiledSelectors(Selectors);

#[wasm_bindgen]
impl CompiledSelectors {
    /// Compiles `list`.
    ///
    /// # Errors
    /// A `TypeError` naming the first selector that does not parse.
    #[wasm_bindgen(constructor)]
    pub fn new(list: Vec<String>) -> Result<CompiledSelectors, JsValue> {
        Selectors::new(list).map(CompiledSelectors).map_err(type_error)
    }
}

/// A streaming rewriter whose handlers are JavaScript functions called
/// through one dispatcher.
#[wasm_bindgen]
pub struct RawRewriter {
    inner: Option<Rewriter<'static, Buffer, Local>>,
    shared: Rc<Shared>,
    /// How much of its chunk the last [`RawRewriter::write`] took.
    taken: usize,
}

#[wasm_bindgen]
impl RawRewriter {
    /// A rewriter with registrations `kinds[i]` on `selectors[i]` (empty for
    /// document handlers); handler `i` runs as `dispatch(i, kind, op)` (src/handlers.rs `call`).
    /// `encoding` is a WHATWG label (UTF-8 when absent).
    ///
    /// # Errors
    /// A `TypeError` for a bad selector, kind or encoding label.
    #[wasm_bindgen(constructor)]
    pub fn new(
        kinds: Vec<u32>,
        selectors: Vec<String>,
        dispatch: Function,
        compiled: &CompiledSelectors,
        encoding: Option<String>,
    ) -> Result<RawRewriter, JsValue> {
        let shared = Rc::new(Shared { dispatch, end_names: RefCell::default(), slots: RefCell::default() });
        let mut settings = Settings::new().with_selectors(&compiled.0);
        if let Some(label) = encoding {
            settings = settings.encoding(&label).map_err(type_error)?;
        }
        for (i, (&kind, selector)) in kinds.iter().zip(&selectors).enumerate() {
            let kind = Registration::from_u32(kind).ok_or_else(|| type_error("unknown handler kind"))?;
            settings = handlers::register(settings, kind, selector, i as u32, &shared);
        }
        let inner = Rewriter::new(settings, Buffer::default()).map_err(type_error)?;
        Ok(RawRewriter { inner: Some(inner), shared, taken: 0 })
    }

    /// Rewrites the next chunk, or as much of it as the held output allows
    /// (output held behind slots that wait for their Promises, up to the
    /// core's `hold_limit`; [`RawRewriter::taken`] says how much); returns
    /// the output it completes (possibly empty).
    ///
    /// # Errors
    /// The rewrite's failure (a handler threw, inserted content refused, …);
    /// later calls fail too.
    pub fn write(&mut self, chunk: &[u8]) -> Result<Vec<u8>, JsValue> {
        let mut taken = 0;
        let out = self.run(|rw| {
            // `write_some` takes at most the bound at once even when nothing is held.
            loop {
                let n = rw.write_some(&chunk[taken..])?;
                taken += n;
                if n == 0 || taken == chunk.len() {
                    return Ok(());
                }
            }
        });
        self.taken = taken;
        out
    }

    /// How many bytes of its chunk the last [`RawRewriter::write`] took.
    #[wasm_bindgen(getter)]
    pub fn taken(&self) -> usize {
        self.taken
    }

    /// Ends the input, keeping the rewriter for the slots still to fill
    /// (elements open at the end end here, `end` handlers run); returns the
    /// output up to the first pending slot. [`RawRewriter::end`] follows.
    ///
    /// # Errors
    /// As [`RawRewriter::write`].
    #[wasm_bindgen(js_name = finishInput)]
    pub fn finish_input(&mut self) -> Result<Vec<u8>, JsValue> {
        self.run(Rewriter::finish_input)
    }

    /// Fills slot `slot` (a number from `Op::Defer`) with `contents[i]`, each
    /// HTML when `html[i]` is nonzero, else text escaped for where the slot
    /// lands, and finishes it; returns the output that this lets go.
    ///
    /// # Errors
    /// An unknown slot; content the slot's place cannot hold; the rewrite's
    /// failure.
    #[wasm_bindgen(js_name = fillSlot)]
    pub fn fill_slot(&mut self, slot: f64, contents: Vec<String>, html: &[u8]) -> Result<Vec<u8>, JsValue> {
        let slot = self.take_slot(slot)?;
        self.run(|rw| {
            for (content, &html) in contents.iter().zip(html) {
                rw.fill_part(slot, content, if html != 0 { ContentType::Html } else { ContentType::Text })?;
            }
            rw.slot_finish(slot)
        })
    }

    /// Gives slot `slot` up: what it stands over stays (`keep`) or goes;
    /// returns the output that this lets go.
    ///
    /// # Errors
    /// As [`RawRewriter::fill_slot`].
    #[wasm_bindgen(js_name = cancelSlot)]
    pub fn cancel_slot(&mut self, slot: f64, keep: bool) -> Result<Vec<u8>, JsValue> {
        let slot = self.take_slot(slot)?;
        self.run(|rw| rw.cancel(slot, if keep { Fallback::KeepOriginal } else { Fallback::Empty }))
    }

    /// Runs `f` on the rewriter; returns the output it let go (taken from the
    /// buffer whether `f` failed or not: what went out before a failure stays out).
    fn run(
        &mut self,
        f: impl FnOnce(&mut Rewriter<'static, Buffer, Local>) -> Result<(), RewritingError>,
    ) -> Result<Vec<u8>, JsValue> {
        let rw = self.inner.as_mut().ok_or_else(ended)?;
        let result = f(rw);
        let out = std::mem::take(&mut rw.sink_mut().0);
        result.map(|()| out).map_err(error)
    }

    /// The slot numbered `n`, forgotten by the map of slots to fill.
    fn take_slot(&mut self, n: f64) -> Result<Slot, JsValue> {
        self.shared.slots.borrow_mut().remove(&(n as u64)).ok_or_else(|| type_error("htrewrite: unknown slot"))
    }

    /// Ends the document; returns the rest of the output.
    ///
    /// # Errors
    /// As [`RawRewriter::write`].
    pub fn end(&mut self) -> Result<Vec<u8>, JsValue> {
        let rw = self.inner.take().ok_or_else(ended)?;
        rw.end().map(|sink| sink.0).map_err(error)
    }
}

fn ended() -> JsValue {
    js_sys::Error::new("htrewrite: the rewriter has ended").into()
}

/// A rewriting error as a JavaScript `Error` (`handler` tells `index.js`
/// that the dispatcher holds the thrown value).
fn error(e: RewritingError) -> JsValue {
    let js = js_sys::Error::new(&format!("htrewrite: {e}"));
    if matches!(e, RewritingError::Handler(_)) {
        js.set_name("HandlerError");
    }
    js.into()
}

/// A `TypeError` with `e`'s message.
pub(crate) fn type_error(e: impl ToString) -> JsValue {
    js_sys::TypeError::new(&e.to_string()).into()
}
