//! The adapters on both runtimes, with `Send` and with `Local` handlers; backpressure; errors.

use std::cell::Cell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use htrewrite::{ContentType, OnError, Sendable, Settings, rewrite_str};
use htrewrite_tokio::{ErrorKind, MAX_PIECE, RewriteReader, RewriteWriter, rewrite_stream};
use libtest_mimic::Trial;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::StreamExt;

/// This file's tests, each on the runtime `#[tokio::test]` gave it: the
/// multi-thread one with two workers, or the current-thread one (time and
/// I/O enabled on both).
pub(crate) fn trials() -> Vec<Trial> {
    type Run = Box<dyn FnOnce() + Send>;
    let tests: [(&str, Run); 6] = [
        (
            "writer_send_handlers_on_the_multi_thread_runtime",
            multi_thread(writer_send_handlers_on_the_multi_thread_runtime),
        ),
        (
            "reader_and_stream_send_on_the_multi_thread_runtime",
            multi_thread(reader_and_stream_send_on_the_multi_thread_runtime),
        ),
        ("local_handlers_in_a_local_set", current_thread(local_handlers_in_a_local_set)),
        ("writer_backpressure_holds_at_most_one_piece", current_thread(writer_backpressure_holds_at_most_one_piece)),
        ("stream_cuts_large_items", current_thread(stream_cuts_large_items)),
        ("errors", current_thread(errors)),
    ];
    tests
        .into_iter()
        .map(|(name, run)| {
            Trial::test(name, move || {
                run();
                Ok(())
            })
        })
        .collect()
}

/// `test`'s future, made on the trial's thread, on a multi-thread runtime
/// with two workers.
fn multi_thread<F: Future<Output = ()> + 'static>(test: fn() -> F) -> Box<dyn FnOnce() + Send> {
    Box::new(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(test())
    })
}

/// `test`'s future, made on the trial's thread, on a current-thread runtime.
fn current_thread<F: Future<Output = ()> + 'static>(test: fn() -> F) -> Box<dyn FnOnce() + Send> {
    Box::new(move || {
        tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(test())
    })
}

const SCRIPT: &str = "<script src=\"/injected.js\"></script>";

fn inject() -> Settings<'static, Sendable> {
    Settings::new_send().element("head", |el| {
        el.append(SCRIPT, ContentType::Html)?;
        Ok(())
    })
}

fn page(name: &str) -> Vec<u8> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/corpus");
    std::fs::read(dir.join(name)).unwrap()
}

fn expected(input: &[u8]) -> Vec<u8> {
    rewrite_str(std::str::from_utf8(input).unwrap(), inject()).unwrap().into_bytes()
}

async fn writer_send_handlers_on_the_multi_thread_runtime() {
    let input = page("lol-html-bench/html-parsing-spec.html");
    let (client, mut server) = tokio::io::duplex(4096);
    let writer = {
        let input = input.clone();
        tokio::spawn(async move {
            let mut w = RewriteWriter::new(inject(), client).unwrap();
            for chunk in input.chunks(1000) {
                w.write_all(chunk).await.unwrap();
            }
            w.shutdown().await.unwrap();
        })
    };
    let mut out = Vec::new();
    server.read_to_end(&mut out).await.unwrap();
    writer.await.unwrap();
    assert_eq!(out, expected(&input));
    assert!(out.windows(SCRIPT.len()).any(|w| w == SCRIPT.as_bytes()));
}

async fn reader_and_stream_send_on_the_multi_thread_runtime() {
    let input = page("readability/wikipedia.html");
    let read = {
        let input = input.clone();
        tokio::spawn(async move {
            let mut r = RewriteReader::new(inject(), &input[..]).unwrap();
            let mut out = Vec::new();
            r.read_to_end(&mut out).await.unwrap();
            out
        })
    };
    let streamed = {
        let chunks: Vec<Result<Bytes, std::io::Error>> =
            input.chunks(777).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
        tokio::spawn(async move {
            let mut s = rewrite_stream(tokio_stream::iter(chunks), inject()).unwrap();
            let mut out = Vec::new();
            while let Some(chunk) = s.next().await {
                out.extend_from_slice(&chunk.unwrap());
            }
            out
        })
    };
    let want = expected(&input);
    assert_eq!(read.await.unwrap(), want);
    assert_eq!(streamed.await.unwrap(), want);
}

/// Handlers over `Rc<Cell<_>>` (not `Send`) in a `LocalSet` on a current-thread runtime.
async fn local_handlers_in_a_local_set() {
    let local = tokio::task::LocalSet::new();
    let seen = Rc::new(Cell::new(0usize));
    let input = page("readability/qq.html");
    let out = local
        .run_until({
            let seen = seen.clone();
            let input = input.clone();
            async move {
                tokio::task::spawn_local(async move {
                    let settings = Settings::new().element("a", move |_| {
                        seen.set(seen.get() + 1);
                        Ok(())
                    });
                    let (client, mut server) = tokio::io::duplex(512);
                    let write = tokio::task::spawn_local(async move {
                        let mut w = RewriteWriter::new(settings, client).unwrap();
                        w.write_all(&input).await.unwrap();
                        w.shutdown().await.unwrap();
                    });
                    let mut out = Vec::new();
                    server.read_to_end(&mut out).await.unwrap();
                    write.await.unwrap();
                    out
                })
                .await
                .unwrap()
            }
        })
        .await;
    assert_eq!(out, input, "handlers that change nothing change no byte");
    assert!(seen.get() > 10, "{} links seen", seen.get());

    // The reader and the stream with Local handlers too.
    let count = Rc::new(Cell::new(0usize));
    let c = count.clone();
    let settings = Settings::new().element("p", move |_| {
        c.set(c.get() + 1);
        Ok(())
    });
    let mut r = RewriteReader::new(settings, &b"<p>a<p>b"[..]).unwrap();
    let mut out = String::new();
    r.read_to_string(&mut out).await.unwrap();
    assert_eq!((out.as_str(), count.get()), ("<p>a<p>b", 2));
}

/// The writer takes at most one piece while the inner writer is full.
async fn writer_backpressure_holds_at_most_one_piece() {
    let (client, mut server) = tokio::io::duplex(1024);
    let mut w = RewriteWriter::new(Settings::new(), client).unwrap();
    let big = vec![b'x'; 4 * MAX_PIECE];
    let n = w.write(&big).await.unwrap();
    assert_eq!(n, MAX_PIECE);
    // The inner pipe holds 1 KiB: the next write cannot go on until the reader reads.
    let stalled = tokio::time::timeout(Duration::from_millis(50), w.write(&big[n..])).await;
    assert!(stalled.is_err(), "write completed without a reader");
    let reader = tokio::spawn(async move {
        let mut out = Vec::new();
        server.read_to_end(&mut out).await.unwrap();
        out.len()
    });
    w.write_all(&big[n..]).await.unwrap();
    w.shutdown().await.unwrap();
    assert_eq!(reader.await.unwrap(), big.len());
}

/// A stream item larger than a piece comes out in pieces, one per poll.
async fn stream_cuts_large_items() {
    let big = Bytes::from(format!("<p>{}</p>", "y".repeat(5 * MAX_PIECE)));
    let input = tokio_stream::iter([Ok::<_, std::io::Error>(big.clone())]);
    let mut s = rewrite_stream(input, Settings::new()).unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = s.next().await {
        let chunk = chunk.unwrap();
        assert!(chunk.len() <= MAX_PIECE + 16, "item of {} bytes", chunk.len());
        out.extend_from_slice(&chunk);
    }
    assert_eq!(out, big);
}

async fn errors() {
    // An input error ends the stream with ErrorKind::Input.
    let input = tokio_stream::iter([Ok(Bytes::from("<p>a")), Err(std::io::Error::other("reset"))]);
    let mut s = rewrite_stream(input, Settings::new()).unwrap();
    assert!(b"<p>a".starts_with(&s.next().await.unwrap().unwrap()));
    assert_eq!(s.next().await.unwrap().unwrap_err().kind(), ErrorKind::Input);
    assert!(s.next().await.is_none());

    // A handler error under OnError::Stop is an io::Error wrapping htrewrite_tokio::Error.
    let settings = Settings::new().element("b", |_| Err("refused".into()));
    let mut w = RewriteWriter::new(settings, Vec::new()).unwrap();
    let err = w.write_all(b"<a><b>x").await.unwrap_err();
    let inner = err.get_ref().unwrap().downcast_ref::<htrewrite_tokio::Error>().unwrap();
    assert_eq!(inner.kind(), ErrorKind::Rewrite);
    assert!(err.to_string().contains("refused"), "{err}");

    // Under OnError::PassThrough the rest passes unchanged and the error is kept.
    let settings = Settings::new().on_error(OnError::PassThrough).element("b", |_| Err("refused".into()));
    let mut w = RewriteWriter::new(settings, Vec::new()).unwrap();
    w.write_all(b"<a><b>x").await.unwrap();
    assert!(w.rewriter().unwrap().error().is_some());
    w.shutdown().await.unwrap();
    assert_eq!(w.into_inner(), b"<a><b>x");

    // Writing after shutdown fails.
    let mut w = RewriteWriter::new(Settings::new(), Vec::new()).unwrap();
    w.shutdown().await.unwrap();
    assert!(w.write_all(b"x").await.is_err());
}
