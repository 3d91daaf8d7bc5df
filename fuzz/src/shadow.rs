//! Target 2: the tokenizer driven by the tree-builder shadow.

use htrewrite_shadow::{
    Event, EventSink, Namespace, NodeId, OwnedEvent, QuirksMode, Shadow, ShadowOptions, ShadowSink,
};
use htrewrite_tokenizer::{Feedback, ParseError, TextMode, Token, TokenKind, TokenSink, Tokenizer};

use crate::split_points;

/// Fragment contexts the target picks from (`None`: a document). Text-mode
/// contexts, table and select contexts, template, and foreign ones
/// (including the HTML integration points).
const CONTEXTS: [Option<(&str, Namespace)>; 16] = [
    None,
    None,
    None,
    None,
    Some(("body", Namespace::Html)),
    Some(("title", Namespace::Html)),
    Some(("textarea", Namespace::Html)),
    Some(("script", Namespace::Html)),
    Some(("noscript", Namespace::Html)),
    Some(("plaintext", Namespace::Html)),
    Some(("table", Namespace::Html)),
    Some(("tr", Namespace::Html)),
    Some(("template", Namespace::Html)),
    Some(("select", Namespace::Html)),
    Some(("svg", Namespace::Svg)),
    Some(("annotation-xml", Namespace::MathMl)),
];

/// Tokenizer + shadow: never panics, lossless, and chunk-invariant.
///
/// `data[0]` picks the shadow's options (bit 0: scripting, bit 1:
/// declarative shadow roots, bits 2–3: the fragment's quirks mode, bits 4–7:
/// the fragment context or a document), `data[1]` the chunking, the rest is
/// the input. The input is fed whole and in the chunks the seed picks,
/// through a tokenizer driven by the shadow's feedback (set up as the
/// document or fragment parsing algorithm sets it up). Both runs must give
/// back the input byte for byte, the same events (adjacent `Text` events
/// merged, adjacent `Ignored` events with touching spans merged), the same
/// declarative shadow roots, the same parse errors and the same stack of open
/// elements after every start tag; in the whole run, every element opened is
/// closed exactly once, never before it is opened. Then sinks that decline
/// text, text events or (some or all) start tags' attributes are fed the
/// input whole and in those chunks: each must get the whole run's events
/// less what it declines (`OwnedEvent::as_declined_by`, compared merged), and
/// the same bytes, declarative shadow roots, parse errors and stacks.
///
/// # Panics
/// When one of those properties fails (that is the finding).
pub fn tokenizer_shadow(data: &[u8]) {
    let (options, pick, input) = match data {
        [a, b, rest @ ..] => (*a, *b, rest),
        _ => (0, 0, data),
    };
    let shadow_options = ShadowOptions {
        scripting: options & 1 != 0,
        declarative_shadow_roots: options & 2 != 0,
        fragment_quirks: match options >> 2 & 3 {
            1 => QuirksMode::LimitedQuirks,
            2 => QuirksMode::Quirks,
            _ => QuirksMode::NoQuirks,
        },
        fragment_context: CONTEXTS[usize::from(options >> 4)].map(|(name, ns)| (name.to_owned(), ns)),
    };
    let whole = run(&shadow_options, input, &[input.len()], Declines::default());
    let splits = split_points(u16::from(pick), input.len());
    let chunked = run(&shadow_options, input, &splits, Declines::default());
    let context = &shadow_options.fragment_context;
    assert_eq!(whole.raw, input, "whole: raw bytes differ from the input (context {context:?})");
    assert_eq!(chunked.raw, input, "chunked {splits:?}: raw bytes differ from the input (context {context:?})");
    if let Err(e) = OwnedEvent::check_pairing(&whole.events) {
        panic!("opened/closed events do not pair up: {e} (context {context:?})");
    }
    let (a, b) = (OwnedEvent::canonical(&whole.events), OwnedEvent::canonical(&chunked.events));
    if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
        panic!(
            "events differ from event #{i} on; chunks {splits:?} (context {context:?}):\n  whole:   {:?}\n  chunked: {:?}",
            a.get(i),
            b.get(i)
        );
    }
    assert_eq!(whole.roots, chunked.roots, "declarative shadow roots differ; chunks {splits:?}");
    assert_eq!(whole.stacks, chunked.stacks, "stacks after start tags differ; chunks {splits:?}");
    assert_eq!(whole.errors, chunked.errors, "parse errors differ; chunks {splits:?} (context {context:?})");
    // Sinks that decline text, text events or attributes get the same
    // events less those, and the shadow takes the same course.
    let runs = [
        (&[input.len()][..], Declines { text: true, text_events: false, attributes: Attributes::All }),
        (&splits, Declines { text: true, text_events: false, attributes: Attributes::Some }),
        (&[input.len()], Declines { text: true, text_events: true, attributes: Attributes::All }),
        (&splits, Declines { text: false, text_events: true, attributes: Attributes::Some }),
    ];
    for (chunks, declines) in runs {
        let declined = run(&shadow_options, input, chunks, declines);
        let recorder = Recorder { declines, ..Recorder::default() };
        let expected = OwnedEvent::canonical(&OwnedEvent::as_declined_by(&whole.events, &recorder));
        let got = OwnedEvent::canonical(&declined.events);
        if let Some(i) = (0..got.len().max(expected.len())).find(|&i| got.get(i) != expected.get(i)) {
            panic!(
                "a sink declining {declines:?} gets other events from event #{i} on; chunks {chunks:?} (context \
                 {context:?}):\n  expected: {:?}\n  declined: {:?}",
                expected.get(i),
                got.get(i)
            );
        }
        assert_eq!(declined.raw, input, "raw bytes differ from the input ({declines:?}, chunks {chunks:?})");
        assert_eq!(whole.roots, declined.roots, "declarative shadow roots differ ({declines:?}, chunks {chunks:?})");
        assert_eq!(whole.stacks, declined.stacks, "stacks after start tags differ ({declines:?}, chunks {chunks:?})");
        assert_eq!(whole.errors, declined.errors, "parse errors differ ({declines:?}, chunks {chunks:?})");
    }
}

/// What one run produced.
#[derive(Debug, Default)]
struct Run {
    events: Vec<OwnedEvent>,
    /// `(host, template)` of every declarative shadow root attached.
    roots: Vec<(NodeId, NodeId)>,
    raw: Vec<u8>,
    /// For each start tag: its span start and the stack of open elements right after it.
    stacks: Vec<(u64, Vec<(String, Namespace)>)>,
    errors: Vec<(u64, u64, &'static str)>,
}

/// Records every event, owned, and the declarative shadow roots; declines
/// what `declines` says.
#[derive(Debug, Default)]
struct Recorder {
    events: Vec<OwnedEvent>,
    roots: Vec<(NodeId, NodeId)>,
    declines: Declines,
}

/// What a [`Recorder`] declines (`EventSink::wants_text`,
/// `EventSink::wants_text_events`, `EventSink::wants_start_tag_attributes`).
#[derive(Debug, Clone, Copy, Default)]
struct Declines {
    text: bool,
    text_events: bool,
    attributes: Attributes,
}

/// Which start tags' attributes a [`Recorder`] declines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Attributes {
    /// None: it reads them all.
    #[default]
    None,
    /// Those of tags whose name starts with a letter of odd code (`a`, `i`,
    /// `s`, …, so `img` and `image` alike): reading some and not others,
    /// as the rewriter's collector does.
    Some,
    /// All.
    All,
}

impl EventSink for Recorder {
    fn event(&mut self, e: Event<'_>) {
        self.events.push(OwnedEvent::from(&e));
    }

    fn attach_declarative_shadow_root(&mut self, host: NodeId, template: NodeId) {
        self.roots.push((host, template));
    }

    fn wants_text(&self) -> bool {
        !self.declines.text
    }

    fn wants_text_events(&self) -> bool {
        !self.declines.text_events
    }

    fn wants_start_tag_attributes(&self, name: &str) -> bool {
        match self.declines.attributes {
            Attributes::None => true,
            Attributes::Some => name.bytes().next().is_none_or(|b| b % 2 == 0),
            Attributes::All => false,
        }
    }
}

/// Taps the tokens between the tokenizer and the shadow.
struct Tap {
    inner: ShadowSink<Recorder>,
    raw: Vec<u8>,
    stacks: Vec<(u64, Vec<(String, Namespace)>)>,
    errors: Vec<(u64, u64, &'static str)>,
}

impl TokenSink for Tap {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        assert_eq!(token.span().start, self.raw.len() as u64, "token does not start where the previous ended");
        self.raw.extend_from_slice(token.raw());
        token.parse_errors(&mut |e| self.errors.push((e.span.start, e.span.end, e.code.as_str())));
        let feedback = self.inner.token(token);
        let shadow = self.inner.shadow();
        assert_eq!(shadow.open_element_count(), shadow.open_elements().len(), "open_element_count");
        assert_eq!(shadow.current_node().map(|e| e.id()), shadow.open_elements().last().map(|e| e.id()));
        if token.kind() == TokenKind::StartTag {
            let stack = shadow.open_elements().map(|e| (e.name().to_owned(), e.ns())).collect();
            self.stacks.push((token.span().start, stack));
        }
        feedback
    }

    fn cdata_allowed(&mut self) -> bool {
        self.inner.cdata_allowed()
    }

    fn parse_error(&mut self, error: ParseError) {
        self.errors.push((error.span.start, error.span.end, error.code.as_str()));
        self.inner.parse_error(error);
    }
}

/// Feeds `input` in chunks of the given lengths through a tokenizer and a
/// shadow, to a [`Recorder`] that declines what `declines` says.
fn run(options: &ShadowOptions, input: &[u8], chunks: &[usize], declines: Declines) -> Run {
    let shadow = Shadow::new(options.clone());
    // As the fragment parsing algorithm sets the tokenizer up: the context
    // element's text mode (no end tag is "appropriate" yet). CDATA is
    // allowed while the adjusted current node is a foreign context element:
    // the shadow answers that (`Shadow::cdata_allowed`).
    let mut tokenizer = match shadow.initial_text_mode() {
        TextMode::Data => Tokenizer::new(),
        mode => Tokenizer::with_text_mode(mode, None),
    };
    let mut tap = Tap {
        inner: ShadowSink::new(shadow, Recorder { declines, ..Recorder::default() }),
        raw: Vec::new(),
        stacks: Vec::new(),
        errors: Vec::new(),
    };
    let mut at = 0;
    for &n in chunks {
        tokenizer.feed(&input[at..at + n], &mut tap);
        at += n;
    }
    tokenizer.finish(&mut tap);
    tap.inner.finish();
    let Tap { inner, raw, stacks, mut errors } = tap;
    let (_, recorder) = inner.into_parts();
    errors.sort_unstable();
    Run { events: recorder.events, roots: recorder.roots, raw, stacks, errors }
}
