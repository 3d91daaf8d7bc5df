//! Streaming: a large input fed slowly through a pipe comes out before it
//! ends, and the process's peak memory (VmHWM) stays flat.
//!
//! `HTREWRITE_STREAM_MB` sets the input size (default 200). The test prints
//! its figures: `cargo test -p htrewrite-cli --test streaming -- --nocapture`.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// One block of the generated document: a paragraph with a link, 256 bytes.
fn block(i: usize) -> Vec<u8> {
    let mut b = format!("<p id=p{i:08}>Lorem ipsum dolor sit amet, <a href=\"/page/{i:08}\">link</a> consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.</p>\n").into_bytes();
    b.resize(255, b' ');
    b.push(b'\n');
    b
}

/// VmHWM (peak resident set) of `pid` in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn output_comes_before_input_ends_and_memory_stays_flat() {
    let megabytes: usize = std::env::var("HTREWRITE_STREAM_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let blocks = megabytes * 4096; // 256-byte blocks
    let mut child = Command::new(env!("CARGO_BIN_EXE_htrewrite"))
        .args(["--set-attr", "a", "rel", "nofollow", "--append-text", "p", "!"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();

    // The reader reports when the first output arrives, then counts bytes.
    let (first_tx, first_rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0; 1 << 16];
        let mut total = 0u64;
        let mut first = Some(first_tx);
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => return total,
                Ok(n) => {
                    total += n as u64;
                    if let Some(tx) = first.take() {
                        let _ = tx.send(Instant::now());
                    }
                }
            }
        }
    });

    // Slow start: 64 KiB, then wait for output while the input is still open.
    let start = Instant::now();
    let mut written = 0usize;
    let mut i = 0;
    while written < 64 * 1024 {
        let b = block(i);
        stdin.write_all(&b).unwrap();
        written += b.len();
        i += 1;
    }
    stdin.flush().unwrap();
    let first = first_rx.recv_timeout(Duration::from_secs(10)).expect("output before the input ended");
    let first_output = first - start;

    // Then the rest, fast, in 1 MiB pieces.
    let mut piece = Vec::with_capacity(1 << 20);
    let mut peak = 0;
    while i < blocks {
        piece.clear();
        while piece.len() < (1 << 20) && i < blocks {
            piece.extend_from_slice(&block(i));
            i += 1;
        }
        stdin.write_all(&piece).unwrap();
        if i % (16 * 4096) < 4096 {
            peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
        }
    }
    peak = peak.max(peak_rss_kib(pid).unwrap_or(0));
    drop(stdin);
    let status = child.wait().unwrap();
    let total_out = reader.join().unwrap();
    let elapsed = start.elapsed();
    let total_in = (blocks * 256) as u64;
    println!(
        "streaming: {total_in} bytes in, {total_out} out, first output after {:.1} ms, peak RSS {peak} KiB, {:.2} s ({:.0} MB/s)",
        first_output.as_secs_f64() * 1e3,
        elapsed.as_secs_f64(),
        total_in as f64 / elapsed.as_secs_f64() / 1e6
    );
    assert!(status.success());
    // Each block gains ` rel="nofollow"` (15 bytes) and `!` (1 byte).
    assert_eq!(total_out, total_in + blocks as u64 * 16);
    assert!(peak > 0, "VmHWM read from /proc");
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB for a {megabytes} MB input");
}
