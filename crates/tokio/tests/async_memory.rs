//! Back-pressure with async handlers (issue 19), counted by an allocator: a
//! 100 MB page, handed out as it is read (slices of two static items, so the
//! heap counted is the rewriting stream's alone), whose first element's future stays
//! pending. [`rewrite_stream_async`] reads the source only while the output
//! held after the slot is under [`Settings::hold_limit`] (64 KiB here):
//! once the stream is idle, the source was read at most one item (16 KiB)
//! and one piece ([`MAX_PIECE`]) past the bound, the rewriter holds at most
//! the bound plus one item, and only the bytes before the slot went out.
//! Then the future resolves and the rest streams through. The peak heap of
//! the whole run (`dhat` in testing mode) must exceed that of the same run
//! with no slot by at most the bound plus two items.
//!
//! One test: dhat allows one profiler at a time per process.

use std::cell::Cell;
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use bytes::Bytes;
use htrewrite::Settings;
use htrewrite_tokio::{AsyncSettings, Content, Defer, MAX_PIECE, rewrite_stream_async};
use tokio::sync::oneshot;
use tokio_stream::Stream;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const BOUND: usize = 64 * 1024;
const ITEM: usize = 16 * 1024;
const PAGE: usize = 100 << 20;
const FRAGMENT: &str = "<nav>n</nav>";

/// The page, handed out item by item as it is read; counts the bytes given.
/// Its items are slices of two static buffers ([`items`]), made before the
/// profiler starts: the source allocates nothing while the heap is counted,
/// so the peaks are the rewriting stream's alone.
struct Source {
    given: Rc<Cell<usize>>,
}

/// The page's first item (`<header></header>` and paragraphs) and every
/// other (paragraphs), each at most [`ITEM`] bytes; made once.
fn items() -> (&'static [u8], &'static [u8]) {
    static ITEMS: std::sync::OnceLock<(Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    let (first, other) = ITEMS.get_or_init(|| {
        let paragraphs = |mut item: Vec<u8>| {
            let mut paragraph = 0u64;
            while item.len() + 100 <= ITEM {
                item.extend_from_slice(format!("<p>{paragraph:08} {}</p>", "x".repeat(84)).as_bytes());
                paragraph += 1;
            }
            item
        };
        (paragraphs(b"<header></header>".to_vec()), paragraphs(Vec::new()))
    });
    (first, other)
}

/// The next item of the page after `given` bytes (`None` at the end): the
/// first item, then other items, the last one cut at the page's end.
fn item(given: usize) -> Option<&'static [u8]> {
    let (first, other) = items();
    let item = if given == 0 { first } else { other };
    (given < PAGE).then(|| &item[..item.len().min(PAGE - given)])
}

impl Stream for Source {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let given = self.given.get();
        let next = item(given);
        if let Some(item) = next {
            self.given.set(given + item.len());
        }
        Poll::Ready(next.map(|i| Ok(Bytes::from_static(i))))
    }
}

/// FNV-1a of the expected output, made as the page is.
fn expected_hash(defer: bool) -> (u64, usize) {
    let (mut hash, mut len, mut given) = (0xcbf2_9ce4_8422_2325u64, 0, 0);
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        len += bytes.len();
    };
    while let Some(item) = item(given) {
        given += item.len();
        if defer && given == item.len() {
            feed(b"<header>");
            feed(FRAGMENT.as_bytes());
            feed(&item[b"<header>".len()..]);
        } else {
            feed(item);
        }
    }
    (hash, len)
}

/// What one run measured.
struct Measure {
    peak: usize,
    read_when_idle: usize,
    held_when_idle: usize,
    out_when_idle: Vec<u8>,
}

/// Rewrites the page with a `header` handler whose future waits for a
/// oneshot (`defer`) or that leaves it alone; drives the stream until idle,
/// measures, resolves the future and drains the rest (checking its hash).
fn run(defer: bool) -> Measure {
    let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
    // The page's items exist before the heap is counted.
    items();
    // Four frames a backtrace (dhat's least; 10 by default): the test reads
    // only the heap's figures, and the unwinding was most of its time.
    let profiler = dhat::Profiler::builder().testing().trim_backtraces(Some(4)).build();
    let given = Rc::new(Cell::new(0));
    let (tx, rx) = oneshot::channel::<()>();
    let mut rx = Some(rx);
    let settings =
        AsyncSettings::new(Settings::new().hold_limit(BOUND)).element_async("header", Defer::Append, move |_| {
            let rx = rx.take().filter(|_| defer)?;
            Some(async move {
                rx.await?;
                Ok(Content::html(FRAGMENT))
            })
        });
    let source = Source { given: given.clone() };
    let mut stream = rewrite_stream_async(source, settings).expect("settings");
    let mut out_when_idle = Vec::new();
    let (mut hash, mut len) = (0xcbf2_9ce4_8422_2325u64, 0usize);
    let mut take = |chunk: &[u8]| {
        for &b in chunk {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        len += chunk.len();
    };
    let (read_when_idle, held_when_idle) = rt.block_on(async {
        // Until the stream is idle (or ended, without a slot).
        while let Poll::Ready(Some(chunk)) = poll_fn(|cx| Poll::Ready(Pin::new(&mut stream).poll_next(cx))).await {
            let chunk = chunk.expect("no error");
            // The first 64 bytes only: without a slot this loop runs to the end of the page.
            let room = 64usize.saturating_sub(out_when_idle.len());
            out_when_idle.extend_from_slice(&chunk[..chunk.len().min(room)]);
            take(&chunk);
        }
        let held = stream.driver().rewriter().map_or(0, |rw| rw.held_bytes());
        (given.get(), held)
    });
    let _ = tx.send(());
    rt.block_on(async {
        use tokio_stream::StreamExt;
        while let Some(chunk) = stream.next().await {
            take(&chunk.expect("no error"));
        }
    });
    let peak = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    assert_eq!((hash, len), expected_hash(defer), "output differs from the expected page");
    Measure { peak, read_when_idle, held_when_idle, out_when_idle }
}

fn main() {
    let without = run(false);
    let with = run(true);
    println!(
        "{} MB page, hold limit {BOUND}: peak heap {} bytes with no slot, {} with the first slot pending until the \
         stream was idle; then {} bytes had been read from the source and the rewriter held {} bytes",
        PAGE >> 20,
        without.peak,
        with.peak,
        with.read_when_idle,
        with.held_when_idle
    );
    assert_eq!(without.read_when_idle, PAGE, "without a slot the whole page is read");
    assert_eq!(with.out_when_idle, b"<header>", "only the bytes before the slot went out");
    assert!(
        with.read_when_idle <= BOUND + ITEM + MAX_PIECE,
        "read {} bytes with the first slot pending (bound {BOUND})",
        with.read_when_idle
    );
    assert!(with.held_when_idle <= BOUND + ITEM, "held {} bytes (bound {BOUND})", with.held_when_idle);
    assert!(
        with.peak <= without.peak + BOUND + 2 * ITEM,
        "peak heap {} bytes, {} without a slot, bound {BOUND}",
        with.peak,
        without.peak
    );
}
