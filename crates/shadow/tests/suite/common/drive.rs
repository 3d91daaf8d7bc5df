//! Drives `Tokenizer` + `ShadowSink` over chunked input and records what the harness checks:
//! the events, the raw bytes of every token, and the stack of open elements after each start tag.

use htrewrite_shadow::{
    CloseCause, Event, EventSink, Namespace, OpenElementRef, OwnedEvent, Shadow, ShadowOptions, ShadowSink,
};
use htrewrite_tokenizer::{Feedback, ParseError, TextMode, Token, TokenKind, TokenSink, Tokenizer};

use crate::common::chunks::Chunking;
use crate::common::dat::{Context, ContextNs};

/// Records every event, owned; with `declines`, as a sink that reads
/// neither text nor attributes of start tags (`EventSink::wants_text`,
/// `EventSink::wants_start_tag_attributes`), with `no_text_events`, as one
/// that takes no text events (`EventSink::wants_text_events`), with
/// `declines_values`, as one that reads start tags' attributes but not
/// their values (`EventSink::wants_start_tag_attribute_values`).
#[derive(Debug, Default)]
pub struct Recorder {
    pub events: Vec<OwnedEvent>,
    pub declines: bool,
    pub no_text_events: bool,
    pub declines_values: bool,
}

impl EventSink for Recorder {
    fn event(&mut self, e: Event<'_>) {
        self.events.push(OwnedEvent::from(&e));
    }

    fn wants_text(&self) -> bool {
        !self.declines
    }

    fn wants_text_events(&self) -> bool {
        !self.no_text_events
    }

    fn wants_start_tag_attributes(&self, _name: &str) -> bool {
        !self.declines
    }

    fn wants_start_tag_attribute_values(&self, _name: &str) -> bool {
        !self.declines_values
    }
}

/// What one run produced.
#[derive(Debug, Default)]
pub struct Run {
    /// All events, in order.
    pub events: Vec<OwnedEvent>,
    /// The raw bytes of all tokens, concatenated.
    pub raw: Vec<u8>,
    /// For each start tag token: its raw bytes and the stack of open elements right after it.
    pub stacks: Vec<(String, String)>,
}

/// The stack of open elements as `html body svg:svg math:mi p`.
pub fn stack_string<'a>(stack: impl Iterator<Item = OpenElementRef<'a>>) -> String {
    let names: Vec<String> = stack
        .map(|e| match e.ns() {
            Namespace::Html => e.name().to_owned(),
            Namespace::Svg => format!("svg:{}", e.name()),
            Namespace::MathMl => format!("math:{}", e.name()),
        })
        .collect();
    names.join(" ")
}

struct Tap {
    inner: ShadowSink<Recorder>,
    raw: Vec<u8>,
    stacks: Vec<(String, String)>,
}

impl TokenSink for Tap {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        self.raw.extend_from_slice(token.raw());
        let feedback = self.inner.token(token);
        if token.kind() == TokenKind::StartTag {
            let stack = stack_string(self.inner.shadow().open_elements());
            self.stacks.push((String::from_utf8_lossy(token.raw()).into_owned(), stack));
        }
        feedback
    }

    fn cdata_allowed(&mut self) -> bool {
        self.inner.cdata_allowed()
    }

    fn parse_error(&mut self, error: ParseError) {
        self.inner.parse_error(error);
    }
}

/// The shadow's namespace for a `.dat` context.
pub fn namespace(ns: ContextNs) -> Namespace {
    match ns {
        ContextNs::Html => Namespace::Html,
        ContextNs::Svg => Namespace::Svg,
        ContextNs::MathMl => Namespace::MathMl,
    }
}

/// The fragment parsing algorithm's tokenizer state for an HTML context element.
pub fn fragment_text_mode(name: &str, scripting: bool) -> TextMode {
    match name {
        "title" | "textarea" => TextMode::Rcdata,
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => TextMode::Rawtext,
        "script" => TextMode::ScriptData,
        "noscript" if scripting => TextMode::Rawtext,
        "plaintext" => TextMode::Plaintext,
        _ => TextMode::Data,
    }
}

/// Shadow options for a case.
pub fn options(fragment: Option<&Context>, scripting: bool) -> ShadowOptions {
    ShadowOptions {
        scripting,
        fragment_context: fragment.map(|c| (c.name.clone(), namespace(c.ns))),
        ..ShadowOptions::default()
    }
}

/// A tokenizer set up as the document or fragment parsing algorithm sets it up.
pub fn tokenizer(fragment: Option<&Context>, scripting: bool) -> Tokenizer {
    match fragment {
        None => Tokenizer::new(),
        Some(Context { ns: ContextNs::Html, name }) => {
            let mode = fragment_text_mode(name, scripting);
            if mode == TextMode::Data {
                Tokenizer::new()
            } else {
                // No start tag has been emitted by this tokenizer, so no end tag is "appropriate"
                // (tokenization, "appropriate end tag token"): in a `script` fragment,
                // `</script>` is text (tests4.dat#009).
                Tokenizer::with_text_mode(mode, None)
            }
        }
        // The adjusted current node is the foreign context element: the shadow allows CDATA
        // sections until an element is pushed (`Shadow::cdata_allowed`).
        Some(Context { .. }) => Tokenizer::new(),
    }
}

/// Feeds `input` cut by `chunking` through the tokenizer and the shadow.
pub fn run(input: &[u8], chunking: &Chunking, fragment: Option<&Context>, scripting: bool) -> Run {
    run_with(input, chunking, fragment, scripting, Recorder::default())
}

/// [`run`], recording with `recorder` (empty, of the kind wanted).
pub fn run_with(
    input: &[u8],
    chunking: &Chunking,
    fragment: Option<&Context>,
    scripting: bool,
    recorder: Recorder,
) -> Run {
    let mut tokenizer = tokenizer(fragment, scripting);
    let shadow = Shadow::new(options(fragment, scripting));
    let mut tap = Tap { inner: ShadowSink::new(shadow, recorder), raw: Vec::new(), stacks: Vec::new() };
    for chunk in chunking.chunks(input) {
        tokenizer.feed(chunk, &mut tap);
    }
    tokenizer.finish(&mut tap);
    tap.inner.finish();
    let Tap { inner, raw, stacks } = tap;
    let (_, recorder) = inner.into_parts();
    Run { events: recorder.events, raw, stacks }
}

/// The events with the spans of `CloseCause::Implied { by }` emptied, to tell that systematic
/// difference apart from others.
pub fn without_implied_spans(events: &[OwnedEvent]) -> Vec<OwnedEvent> {
    events
        .iter()
        .map(|e| match e {
            OwnedEvent::ElementClosed { id, cause: CloseCause::Implied { .. } } => OwnedEvent::ElementClosed {
                id: *id,
                cause: CloseCause::Implied { by: htrewrite_tokenizer::Span::new(0, 0) },
            },
            other => other.clone(),
        })
        .collect()
}

/// The spans the layers above will cut the input at: an element from a start tag points at
/// `<name …>` (its name, ASCII case-insensitively, or `image` for `img`), an element closed by
/// its end tag at `</…>`.
pub fn check_spans(input: &[u8], events: &[OwnedEvent]) -> Result<(), String> {
    let slice = |span: htrewrite_tokenizer::Span| -> Result<&[u8], String> {
        input.get(span.start as usize..span.end as usize).ok_or_else(|| format!("span {span:?} outside the input"))
    };
    for (i, e) in events.iter().enumerate() {
        match e {
            OwnedEvent::ElementOpened { name, origin: htrewrite_shadow::Origin::StartTag { span }, .. } => {
                let raw = slice(*span)?;
                let tag: Vec<u8> = raw
                    .iter()
                    .skip(1)
                    .take_while(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b' ' | b'/' | b'>'))
                    .map(u8::to_ascii_lowercase)
                    .collect();
                let lower = name.to_ascii_lowercase();
                let named = tag == lower.as_bytes() || (lower == "img" && tag == b"image");
                if !raw.starts_with(b"<") || raw.starts_with(b"</") || !raw.ends_with(b">") || !named {
                    return Err(format!(
                        "event #{i}: <{name}> from start tag at {span:?}, which is {:?}",
                        String::from_utf8_lossy(raw)
                    ));
                }
            }
            OwnedEvent::ElementClosed { id, cause: CloseCause::EndTag { span } } => {
                let raw = slice(*span)?;
                if !raw.starts_with(b"</") || !raw.ends_with(b">") {
                    return Err(format!(
                        "event #{i}: {id:?} closed by its end tag at {span:?}, which is {:?}",
                        String::from_utf8_lossy(raw)
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}
