//! Async handlers (issue 19): [`AsyncSettings`] driven by [`rewrite_stream_async`].
//!
//! - `case::*`: the cases of `data/async_cases.toml` (see its header). Each
//!   runs with the page whole, split at every byte and at three seeded
//!   random points, each chunk after a `Pending` of the source (so futures
//!   resolve between chunks too); with the futures resolved in every order (all
//!   permutations up to 4 futures, 12 seeded random orders beyond: each
//!   future waits on a `oneshot` the test completes in that order); each
//!   fragment whole, streamed byte by byte and streamed at seeded random
//!   points. Every run must give the expected output and as many
//!   content errors as futures that fail.
//! - `random::large_pages`: seeded random pages of 40 fragment elements
//!   among other markup, random page chunking, random resolution order,
//!   random fragment chunking and random concurrency: the output equals
//!   the same replacements made at once by a synchronous handler. The seed
//!   is printed on failure (`HTREWRITE_SEED` replays one).
//! - `timing::*` (Tokio's paused clock, no real sleeps): 20 fragments of
//!   100 ms each finish in 100 ms with enough concurrency and in 400 ms
//!   with 5 at once; the bytes before the first fragment leave at once; a
//!   future slower than the timeout gets the fallback and a `Timeout` error.
//! - `errors::*`: a stream that fails midway keeps what came and reports
//!   the error; a slot a synchronous handler deferred and nobody fills
//!   fails the rewrite at the end instead of hanging; so does input held
//!   behind such a slot; a handler failure yields the output made before
//!   it (up to a pending slot), then the error.
//! - `runtimes::*`: `Send` handlers on the multi-thread runtime
//!   (`tokio::spawn`), `Local` handlers (over `Rc`) on a current-thread one.
//!
//! Back-pressure with a 100 MB page is in `tests/async_memory.rs`.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use htrewrite::{ContentType, Fallback, Settings, rewrite_str};
use htrewrite_testkit::{Random, SplitMix64, env_seed, fnv1a64, permutations, shuffled};
use htrewrite_tokio::{AsyncSettings, BoxError, Content, Defer, Error, ErrorKind, rewrite_stream_async};
use libtest_mimic::{Failed, Trial};
use serde::Deserialize;
use tokio::sync::oneshot;
use tokio_stream::StreamExt;

#[derive(Debug, Deserialize)]
struct File {
    case: Vec<Case>,
}

#[derive(Debug, Clone, Deserialize)]
struct Case {
    name: String,
    input: String,
    selector: String,
    defer: String,
    #[serde(rename = "type")]
    ty: String,
    fragments: Vec<String>,
    #[serde(default)]
    fail: Vec<usize>,
    #[serde(default)]
    fallback: Option<String>,
    #[serde(default)]
    expect_errors: Option<usize>,
    expected: String,
}

/// How a fragment's content is given.
#[derive(Debug, Clone, Copy)]
enum Fill {
    Whole,
    ByteByByte,
    Random(u64),
}

fn defer(name: &str) -> Defer {
    match name {
        "before" => Defer::Before,
        "after" => Defer::After,
        "prepend" => Defer::Prepend,
        "append" => Defer::Append,
        "inner" => Defer::InnerContent,
        "replace" => Defer::Replace,
        other => Defer::Attribute(other.strip_prefix("attribute:").expect("a known defer").to_string()),
    }
}

fn content_type(name: &str) -> ContentType {
    if name == "text" { ContentType::Text } else { ContentType::Html }
}

/// `bytes` cut at `cuts` (sorted offsets).
fn split_at(bytes: &[u8], cuts: &[usize]) -> Vec<Bytes> {
    let mut pieces = Vec::new();
    let mut from = 0;
    for &c in cuts.iter().chain([&bytes.len()]) {
        if c > from {
            pieces.push(Bytes::copy_from_slice(&bytes[from..c]));
            from = c;
        }
    }
    pieces
}

/// Sorted random cut points in `bytes`.
fn random_cuts(len: usize, n: usize, rng: &mut SplitMix64) -> Vec<usize> {
    let mut cuts: Vec<usize> = (0..n).map(|_| if len == 0 { 0 } else { rng.below(len + 1) }).collect();
    cuts.sort_unstable();
    cuts
}

/// The page's chunkings: whole, at every byte, three seeded random ones.
fn chunkings(page: &[u8], seed: u64) -> Vec<(String, Vec<Bytes>)> {
    let mut all = vec![("whole".to_string(), vec![Bytes::copy_from_slice(page)])];
    all.push(("every byte".to_string(), split_at(page, &(1..page.len()).collect::<Vec<_>>())));
    let mut rng = SplitMix64::new(seed);
    for i in 0..3 {
        let cuts = random_cuts(page.len(), 1 + rng.below(6), &mut rng);
        all.push((format!("random {i} {cuts:?}"), split_at(page, &cuts)));
    }
    all
}

/// The resolution orders: every permutation up to 4 futures, else 12 seeded random ones.
fn orders(n: usize, seed: u64) -> Vec<Vec<usize>> {
    if n <= 4 {
        return permutations(n);
    }
    let mut rng = SplitMix64::new(seed);
    (0..12).map(|_| shuffled(n, &mut rng)).collect()
}

/// One fragment's pieces for `fill`.
fn fragment_pieces(fragment: &str, fill: Fill, index: usize) -> Option<Vec<Bytes>> {
    let bytes = fragment.as_bytes();
    match fill {
        Fill::Whole => None,
        Fill::ByteByByte => Some(split_at(bytes, &(1..bytes.len()).collect::<Vec<_>>())),
        Fill::Random(seed) => {
            let mut rng = SplitMix64::new(seed ^ index as u64);
            let n = rng.below(4);
            Some(split_at(bytes, &random_cuts(bytes.len(), n, &mut rng)))
        }
    }
}

/// The page's chunks, each after one `Pending` (its waker woken at once),
/// so that futures resolve between chunks, not only after the whole page.
struct Trickle {
    chunks: std::vec::IntoIter<Bytes>,
    ready: bool,
}

impl tokio_stream::Stream for Trickle {
    type Item = Result<Bytes, io::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        if !std::mem::replace(&mut self.ready, false) {
            self.ready = true;
            cx.waker().wake_by_ref();
            return std::task::Poll::Pending;
        }
        std::task::Poll::Ready(self.chunks.next().map(Ok))
    }
}

/// What one run is given.
struct Run<'a> {
    selector: &'a str,
    defer: Defer,
    ty: ContentType,
    fragments: &'a [String],
    fail: &'a [usize],
    fallback: Fallback,
    concurrency: usize,
}

/// Rewrites `chunks` with the futures of `run` resolved in `order` (each
/// waits on a oneshot completed in that order); the output and the errors.
async fn rewrite(
    run: &Run<'_>,
    chunks: Vec<Bytes>,
    order: &[usize],
    fill: Fill,
) -> Result<(Vec<u8>, Vec<Error>), Failed> {
    type Senders = Arc<Mutex<Vec<Option<oneshot::Sender<()>>>>>;
    let senders: Senders = Arc::default();
    let made = senders.clone();
    let (fragments, fail, ty) = (run.fragments.to_vec(), run.fail.to_vec(), run.ty);
    let mut count = 0;
    let settings = AsyncSettings::new(Settings::new())
        .fallback(run.fallback)
        .concurrency(run.concurrency)
        .element_async(run.selector, run.defer.clone(), move |_el| {
            let i = count;
            count += 1;
            let (tx, rx) = oneshot::channel::<()>();
            made.lock().unwrap().push(Some(tx));
            let fragment = fragments.get(i).cloned().unwrap_or_default();
            let fails = fail.contains(&i);
            Some(async move {
                rx.await.map_err(|e| Box::new(e) as BoxError)?;
                if fails {
                    return Err(format!("fragment {i} failed").into());
                }
                Ok(match fragment_pieces(&fragment, fill, i) {
                    None if ty == ContentType::Text => Content::text(fragment),
                    None => Content::html(fragment),
                    Some(pieces) => Content::stream(tokio_stream::iter(pieces.into_iter().map(Ok::<_, io::Error>)), ty),
                })
            })
        });
    let input = Trickle { chunks: chunks.into_iter(), ready: false };
    let stream = rewrite_stream_async(input, settings).map_err(|e| format!("settings: {e}"))?;
    let consume = drain(stream);
    let control = async {
        for &i in order {
            let mut tries = 0;
            loop {
                let tx = senders.lock().unwrap().get_mut(i).and_then(Option::take);
                if let Some(tx) = tx {
                    let _ = tx.send(());
                    break;
                }
                tries += 1;
                if tries > 100_000 {
                    return Err(format!("future {i} was never made"));
                }
                tokio::task::yield_now().await;
            }
            for _ in 0..3 {
                tokio::task::yield_now().await;
            }
        }
        Ok(())
    };
    let ((out, errors), control) = tokio::join!(consume, control);
    control?;
    Ok((out, errors))
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime")
}

fn run_case(case: &Case) -> Result<(), Failed> {
    let seed = fnv1a64(case.name.as_bytes());
    let run = Run {
        selector: &case.selector,
        defer: defer(&case.defer),
        ty: content_type(&case.ty),
        fragments: &case.fragments,
        fail: &case.fail,
        fallback: if case.fallback.as_deref() == Some("empty") { Fallback::Empty } else { Fallback::KeepOriginal },
        concurrency: 16,
    };
    let want_errors = case.expect_errors.unwrap_or(case.fail.len());
    let rt = current_thread();
    let mut runs = 0;
    for (chunking, chunks) in chunkings(case.input.as_bytes(), seed) {
        for order in orders(case.fragments.len(), seed) {
            for fill in [Fill::Whole, Fill::ByteByByte, Fill::Random(seed)] {
                let (out, errors) = rt.block_on(rewrite(&run, chunks.clone(), &order, fill))?;
                let out = String::from_utf8_lossy(&out);
                if out != case.expected || errors.len() != want_errors {
                    return Err(format!(
                        "page {chunking}, order {order:?}, fill {fill:?} (seed {seed}):\n  got      {out:?}\n  expected {:?}\n  errors {errors:?}, expected {want_errors}",
                        case.expected
                    )
                    .into());
                }
                if let Some(e) = errors.iter().find(|e| e.kind() != ErrorKind::Content || e.slot().is_none()) {
                    return Err(format!("an error not of kind Content with a slot: {e:?}").into());
                }
                runs += 1;
            }
        }
    }
    if runs == 0 {
        return Err("no run".into());
    }
    Ok(())
}

/// A random page of `n` `<x-f>` fragment elements among other markup, and
/// the content for each.
fn random_page(rng: &mut SplitMix64, n: usize) -> (String, Vec<String>) {
    const FILLER: [&str; 8] = [
        "<p>para",
        "text &amp; more",
        "<div class=a>",
        "</div>",
        "<ul><li>x<li>y</ul>",
        "<!-- c -->",
        "<b>b</b>",
        "é✓",
    ];
    let mut page = String::from("<!DOCTYPE html><title>t</title>");
    let mut fragments = Vec::new();
    for i in 0..n {
        for _ in 0..rng.below(4) {
            page.push_str(FILLER[rng.below(FILLER.len())]);
        }
        page.push_str(&format!("<x-f id=f{i}>old {i}</x-f>"));
        let len = rng.below(40);
        fragments.push(format!("<span>{i}:{}</span>", "é-".repeat(len)));
    }
    page.push_str("<footer>end</footer>");
    (page, fragments)
}

fn large_pages() -> Result<(), Failed> {
    let base = env_seed().unwrap_or(0x0019_a59c);
    let rt = current_thread();
    for k in 0..20u64 {
        let seed = base.wrapping_add(k);
        let mut rng = SplitMix64::new(seed);
        let (page, fragments) = random_page(&mut rng, 40);
        let expected = {
            let mut i = 0;
            let replaced = fragments.clone();
            let settings = Settings::new().element("x-f", move |el| {
                el.replace(&replaced[i], ContentType::Html)?;
                i += 1;
                Ok(())
            });
            rewrite_str(&page, settings).map_err(|e| format!("reference: {e}"))?
        };
        let cuts = random_cuts(page.len(), 1 + rng.below(60), &mut rng);
        let chunks = split_at(page.as_bytes(), &cuts);
        let order = orders(fragments.len(), rng.next_u64()).swap_remove(0);
        let run = Run {
            selector: "x-f",
            defer: Defer::Replace,
            ty: ContentType::Html,
            fragments: &fragments,
            fail: &[],
            fallback: Fallback::KeepOriginal,
            concurrency: 1 + rng.below(45),
        };
        let (out, errors) = rt.block_on(rewrite(&run, chunks, &order, Fill::Random(rng.next_u64())))?;
        if String::from_utf8_lossy(&out) != expected || !errors.is_empty() {
            return Err(format!(
                "seed {seed} (replay with HTREWRITE_SEED={seed}): output differs from the immediate replacements \
                 (concurrency {}, errors {errors:?})",
                run.concurrency
            )
            .into());
        }
    }
    Ok(())
}

/// A page of `n` fragments, each a future that sleeps `delay` on Tokio's clock.
fn sleeping_fragments(n: usize, delay: Duration, concurrency: usize) -> (String, AsyncSettings<'static>) {
    let page: String = (0..n).map(|i| format!("<x-f>{i}</x-f>")).collect();
    let mut i = 0;
    let settings =
        AsyncSettings::new(Settings::new()).concurrency(concurrency).element_async("x-f", Defer::Replace, move |_| {
            i += 1;
            let n = i;
            Some(async move {
                tokio::time::sleep(delay).await;
                Ok(Content::html(format!("[{n}]")))
            })
        });
    (format!("<h1>first</h1>{page}"), settings)
}

/// Rewrites `page` with `settings`; the output, and the paused clock's time of the first and last items.
async fn timed(page: String, settings: AsyncSettings<'static>) -> (String, Duration, Duration) {
    let start = tokio::time::Instant::now();
    let input = tokio_stream::iter([Ok::<_, io::Error>(page)]);
    let mut s = rewrite_stream_async(input, settings).expect("settings");
    let (mut out, mut first) = (Vec::new(), None);
    while let Some(chunk) = s.next().await {
        first.get_or_insert_with(|| start.elapsed());
        out.extend_from_slice(&chunk.expect("no error"));
    }
    (String::from_utf8(out).expect("utf-8"), first.unwrap_or_default(), start.elapsed())
}

fn paused() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().expect("runtime")
}

fn timing_concurrent_fragments() -> Result<(), Failed> {
    paused().block_on(async {
        let delay = Duration::from_millis(100);
        let (page, settings) = sleeping_fragments(20, delay, 20);
        let (out, first, total) = timed(page, settings).await;
        let expected: String = (1..=20).map(|i| format!("[{i}]")).collect();
        assert_eq!(out, format!("<h1>first</h1>{expected}"));
        if first != Duration::ZERO || total != delay {
            return Err(format!("first bytes at {first:?}, all at {total:?}: want 0 and {delay:?}").into());
        }
        let (page, settings) = sleeping_fragments(20, delay, 5);
        let (_, _, total) = timed(page, settings).await;
        if total != 4 * delay {
            return Err(format!("20 fragments 5 at a time took {total:?}, want {:?}", 4 * delay).into());
        }
        Ok(())
    })
}

fn timing_timeout_gets_the_fallback() -> Result<(), Failed> {
    paused()
        .block_on(async {
            let settings = AsyncSettings::new(Settings::new())
                .timeout(Duration::from_secs(1))
                .fallback(Fallback::Empty)
                .element_async("aside", Defer::Replace, |el| {
                    let slow = el.get_attribute("class").as_deref() == Some("slow");
                    Some(async move {
                        tokio::time::sleep(Duration::from_secs(if slow { 60 } else { 0 })).await;
                        Ok(Content::html("<b>ad</b>"))
                    })
                });
            let input = tokio_stream::iter([Ok::<_, io::Error>("<aside class=slow>a</aside><aside>b</aside>!")]);
            let start = tokio::time::Instant::now();
            let (out, errors) = drain(rewrite_stream_async(input, settings)?).await;
            assert_eq!(String::from_utf8(out)?, "<b>ad</b>!");
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!(errors[0].kind(), ErrorKind::Timeout);
            assert_eq!(errors[0].slot().map(|s| s.index()), Some(0));
            assert_eq!(errors[0].to_string(), "content for slot 0 timed out: no content within 1s");
            assert_eq!(start.elapsed(), Duration::from_secs(1));
            Ok::<(), Box<dyn std::error::Error>>(())
        })
        .map_err(|e| e.to_string().into())
}

fn errors_stream_fails_midway() -> Result<(), Failed> {
    current_thread()
        .block_on(async {
            let settings = AsyncSettings::new(Settings::new()).element_async("main", Defer::InnerContent, |_| {
                Some(async {
                    let chunks = [Ok(Bytes::from("<p>one</p>")), Err(io::Error::other("upstream reset"))];
                    Ok(Content::stream(tokio_stream::iter(chunks), ContentType::Html))
                })
            });
            let input = tokio_stream::iter([Ok::<_, io::Error>("<main>old</main><footer>f</footer>")]);
            let (out, errors) = drain(rewrite_stream_async(input, settings)?).await;
            // What came stays, ended there: the output does not depend on whether it was written already.
            assert_eq!(String::from_utf8(out)?, "<main><p>one</p></main><footer>f</footer>");
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].kind(), ErrorKind::Content);
            assert_eq!(errors[0].to_string(), "content for slot 0 failed: upstream reset");
            Ok::<(), Box<dyn std::error::Error>>(())
        })
        .map_err(|e| e.to_string().into())
}

/// Drains a stream: the output and every error.
async fn drain<S: tokio_stream::Stream<Item = Result<Bytes, Error>> + Unpin>(mut s: S) -> (Vec<u8>, Vec<Error>) {
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    while let Some(item) = s.next().await {
        match item {
            Ok(chunk) => out.extend_from_slice(&chunk),
            Err(e) => errors.push(e),
        }
    }
    (out, errors)
}

fn errors_unfilled_sync_slot() -> Result<(), Failed> {
    current_thread()
        .block_on(async {
            // A synchronous handler defers a slot nobody fills: an error at the end, not a hang.
            let settings = Settings::new().element("p", |el| {
                el.defer_append();
                Ok(())
            });
            let input = tokio_stream::iter([Ok::<_, io::Error>("<p>a</p>b")]);
            let (out, errors) = drain(rewrite_stream_async(input, AsyncSettings::new(settings))?).await;
            assert_eq!(out, b"<p>a");
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].kind(), ErrorKind::Rewrite);
            assert_eq!(
                errors[0].to_string(),
                "rewriting failed: the input ended with slots neither filled nor cancelled: 0"
            );
            // Input held behind such a slot: the same, before the end of input.
            let settings = Settings::new().hold_limit(16).element("p", |el| {
                el.defer_append();
                Ok(())
            });
            let long = format!("<p>a</p>{}", "x".repeat(1000));
            let input = tokio_stream::iter([Ok::<_, io::Error>(long)]).chain(tokio_stream::pending());
            let (_, errors) = drain(rewrite_stream_async(input, AsyncSettings::new(settings))?).await;
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].kind(), ErrorKind::Rewrite);
            Ok::<(), Box<dyn std::error::Error>>(())
        })
        .map_err(|e| e.to_string().into())
}

fn errors_handler_failure_after_the_output_before_it() -> Result<(), Failed> {
    current_thread()
        .block_on(async {
            let settings = Settings::new().element("p", |_| Err("refused".into()));
            let settings = AsyncSettings::new(settings).element_async("b", Defer::Append, |_| {
                Some(async {
                    tokio::task::yield_now().await;
                    Ok(Content::text("!"))
                })
            });
            let input = tokio_stream::iter([Ok::<_, io::Error>("<b>x</b><i>y</i><p>z")]);
            let mut s = rewrite_stream_async(input, settings)?;
            let mut items = Vec::new();
            while let Some(item) = s.next().await {
                items.push(item.map_err(|e| (e.kind(), e.to_string())));
            }
            // The output made before the failing token (up to the slot still pending: what it
            // held is dropped), then the error, then the end.
            let out: Vec<u8> = items.iter().filter_map(|i| i.as_ref().ok()).flat_map(|b| b.to_vec()).collect();
            assert_eq!(String::from_utf8(out)?, "<b>x");
            assert_eq!(
                items.last(),
                Some(&Err((ErrorKind::Rewrite, "rewriting failed: handler failed: refused".to_string())))
            );
            Ok::<(), Box<dyn std::error::Error>>(())
        })
        .map_err(|e| e.to_string().into())
}

fn runtimes_send_on_multi_thread() -> Result<(), Failed> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(async {
        let settings = AsyncSettings::new(Settings::new_send()).element_async("x-f", Defer::Replace, |el| {
            let id = el.get_attribute("id")?;
            Some(async move {
                // Made on another task of the multi-thread runtime.
                let body = tokio::spawn(async move { format!("<b>{id}</b>") }).await?;
                Ok(Content::html(body))
            })
        });
        let page: String = (0..50).map(|i| format!("<x-f id={i}></x-f>,")).collect();
        let expected: String = (0..50).map(|i| format!("<b>{i}</b>,")).collect();
        let input = tokio_stream::iter([Ok::<_, io::Error>(page)]);
        let stream = rewrite_stream_async(input, settings)?;
        let (out, errors) = tokio::spawn(drain(stream)).await?;
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(String::from_utf8(out)?, expected);
        Ok::<(), Box<dyn std::error::Error>>(())
    })
    .map_err(|e| e.to_string().into())
}

fn runtimes_local_on_current_thread() -> Result<(), Failed> {
    current_thread()
        .block_on(async {
            let seen = std::rc::Rc::new(std::cell::Cell::new(0));
            let counter = seen.clone();
            let settings = AsyncSettings::new(Settings::new()).element_async("p", Defer::Append, move |_| {
                counter.set(counter.get() + 1);
                let n = std::rc::Rc::new(counter.get()); // not Send
                Some(async move {
                    tokio::task::yield_now().await;
                    Ok(Content::text(format!(" #{n}")))
                })
            });
            let input = tokio_stream::iter([Ok::<_, io::Error>("<p>a<p>b")]);
            let (out, errors) = drain(rewrite_stream_async(input, settings)?).await;
            assert!(errors.is_empty());
            assert_eq!(String::from_utf8(out)?, "<p>a #1<p>b #2");
            assert_eq!(seen.get(), 2);
            Ok::<(), Box<dyn std::error::Error>>(())
        })
        .map_err(|e| e.to_string().into())
}

/// `Defer::PrependParsed`: the fragment, streamed, is parsed as part of
/// the page (the page's synchronous `img` rule applies inside it, and an
/// `aside` in it gets its own future), in every chunking of the page and of
/// the fragments: as the spliced page rewritten at once.
fn parsed_rules_apply_inside_streamed_fragments() -> Result<(), Failed> {
    let page = "<p>a<aside id=1></aside><img src=p><p>b";
    let fragments = ["<img src=f1><aside id=2></aside><b>x", "<i>in 2</i><img src=f2>"];
    let spliced = "<p>a<aside id=1><img src=f1><aside id=2><i>in 2</i><img src=f2></aside><b>x</aside><img src=p><p>b";
    let lazy = || Settings::new().element("img", |el| Ok(el.set_attribute("loading", "lazy")?));
    let expected = rewrite_str(spliced, lazy())?;
    let rt = current_thread();
    let seed = fnv1a64(b"parsed");
    for (chunking, chunks) in chunkings(page.as_bytes(), seed) {
        for fill in [Fill::Whole, Fill::ByteByByte, Fill::Random(seed)] {
            let mut count = 0;
            let settings = AsyncSettings::new(lazy()).element_async("aside", Defer::PrependParsed, move |_el| {
                let fragment = fragments[count].to_string();
                count += 1;
                let i = count;
                Some(async move {
                    tokio::task::yield_now().await;
                    Ok(match fragment_pieces(&fragment, fill, i) {
                        None => Content::html(fragment),
                        Some(pieces) => Content::stream(
                            tokio_stream::iter(pieces.into_iter().map(Ok::<_, io::Error>)),
                            ContentType::ParsedHtml,
                        ),
                    })
                })
            });
            let input = Trickle { chunks: chunks.clone().into_iter(), ready: false };
            let stream = rewrite_stream_async(input, settings).map_err(|e| format!("settings: {e}"))?;
            let (out, errors) = rt.block_on(drain(stream));
            let out = String::from_utf8_lossy(&out);
            if out != expected || !errors.is_empty() {
                return Err(format!(
                    "page {chunking}, fill {fill:?}: {out:?}, expected {expected:?}, errors {errors:?}"
                )
                .into());
            }
        }
    }
    Ok(())
}

pub(crate) fn trials() -> Vec<Trial> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/async_cases.toml");
    let file: File = toml::from_str(&std::fs::read_to_string(&path).expect("async_cases.toml")).expect("it parses");
    let names: BTreeMap<&str, usize> = file.case.iter().enumerate().map(|(i, c)| (c.name.as_str(), i)).collect();
    assert_eq!(names.len(), file.case.len(), "case names are unique");
    let mut trials: Vec<Trial> = file
        .case
        .into_iter()
        .map(|case| Trial::test(format!("case::{}", case.name), move || run_case(&case)))
        .collect();
    type Test = fn() -> Result<(), Failed>;
    let fixed: [(&str, Test); 9] = [
        ("parsed::rules_apply_inside_streamed_fragments", parsed_rules_apply_inside_streamed_fragments),
        ("random::large_pages", large_pages),
        ("timing::concurrent_fragments", timing_concurrent_fragments),
        ("timing::timeout_gets_the_fallback", timing_timeout_gets_the_fallback),
        ("errors::stream_fails_midway", errors_stream_fails_midway),
        ("errors::unfilled_sync_slot", errors_unfilled_sync_slot),
        ("errors::handler_failure_after_the_output_before_it", errors_handler_failure_after_the_output_before_it),
        ("runtimes::send_on_multi_thread", runtimes_send_on_multi_thread),
        ("runtimes::local_on_current_thread", runtimes_local_on_current_thread),
    ];
    trials.extend(fixed.into_iter().map(|(name, f)| Trial::test(name, f)));
    trials
}
