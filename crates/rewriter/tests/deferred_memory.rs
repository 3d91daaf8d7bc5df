//! Bounded memory with a pending slot (issue 19), counted by an allocator:
//! a 10 MB page whose first element's slot is not filled. The rewriter
//! takes input until the output it holds reaches [`Settings::hold_limit`]
//! (64 KiB here), then takes none; after the fill the rest of the page goes
//! through into a sink that keeps nothing. The peak heap of the whole run,
//! read from `dhat` in testing mode (the page is allocated before
//! counting), must exceed that of the same run with no slot by at most the
//! bound plus 16 KiB (the piece of input that crossed it, the queue).
//!
//! One test: dhat allows one profiler at a time per process.

use std::cell::RefCell;
use std::rc::Rc;

use htrewrite::{ContentType, Rewriter, Settings, Slot};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

const BOUND: usize = 64 * 1024;

/// Peak heap (bytes) of rewriting `page` with a `header` handler that
/// defers its append (`defer`) or only reads, in 16 KiB chunks, the slot
/// filled when input stops; the heap in use when input stopped (or ended);
/// and how much input was taken before that.
fn run(page: &[u8], defer: bool) -> (usize, usize, usize) {
    let profiler = dhat::Profiler::builder().testing().build();
    let slots: Rc<RefCell<Vec<Slot>>> = Rc::default();
    let made = slots.clone();
    let settings = Settings::new().hold_limit(BOUND).element("header", move |el| {
        if defer {
            made.borrow_mut().push(el.defer_append());
        }
        Ok(())
    });
    let mut written = 0usize;
    let mut rw = Rewriter::new(settings, |c: &[u8]| written += c.len()).expect("settings");
    let mut taken = 0;
    while taken < page.len() {
        let end = (taken + 16 * 1024).min(page.len());
        let n = rw.write_some(&page[taken..end]).expect("write_some");
        if n == 0 {
            break;
        }
        taken += n;
    }
    let at_stop = dhat::HeapStats::get().curr_bytes;
    if let Some(&slot) = slots.borrow().first() {
        rw.fill(slot, "<nav>n</nav>", ContentType::Html).expect("fill");
    }
    rw.write(&page[taken..]).expect("the rest");
    let _sink = rw.end().expect("end");
    let peak = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    let fragment = if defer { "<nav>n</nav>".len() } else { 0 };
    assert_eq!(written, page.len() + fragment, "bytes written");
    (peak, at_stop, taken)
}

fn main() {
    let mut page = b"<header></header>".to_vec();
    for i in 0..100_000 {
        page.extend_from_slice(format!("<p>{i:08} {}</p>", "x".repeat(84)).as_bytes());
    }
    let (without, end_without, _) = run(&page, false);
    let (with, at_stop, taken) = run(&page, true);
    println!(
        "10 MB page, bound {BOUND}: peak heap {without} bytes with no slot ({end_without} in use at the end of \
         input), {with} with the first slot unfilled until input stopped after {taken} bytes ({at_stop} in use \
         then)"
    );
    assert!(taken < 2 * BOUND, "took {taken} bytes with the first slot unfilled");
    // The held output (the bound, plus the piece of input that crossed it)
    // and the queue's and slot table's own allocations.
    assert!(with <= without + BOUND + 16 * 1024, "peak heap {with} bytes, {without} without a slot, bound {BOUND}");
}
