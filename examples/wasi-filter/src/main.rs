//! `wasi-filter SELECTOR NAME VALUE`: copies standard input to standard
//! output through htrewrite, setting attribute `NAME` to `VALUE` on every
//! element `SELECTOR` matches — what `htrewrite --set-attr SELECTOR NAME
//! VALUE` does, with nothing but the core crates and `std`'s standard
//! streams, so that it builds for `wasm32-wasip1` and runs under any WASI
//! runtime (`examples/wasi-filter/check.py` runs it under wasmtime and
//! compares its output with the native CLI's). Input is read and written in
//! 4 KiB chunks, as it streams.
//!
//! Exit status: 0 on success, 2 on a usage or selector error, 1 when the
//! rewrite fails (the message on standard error).
#![forbid(unsafe_code)]

use std::io::{Read, Write};
use std::process::ExitCode;

use htrewrite::{Rewriter, Settings};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [selector, name, value] = &args[..] else {
        eprintln!("usage: wasi-filter SELECTOR NAME VALUE < in.html > out.html");
        return ExitCode::from(2);
    };
    let settings = Settings::new().element(selector, |el| {
        el.set_attribute(name, value)?;
        Ok(())
    });
    let mut out = std::io::stdout().lock();
    let mut write_error = None;
    let sink = |bytes: &[u8]| {
        if write_error.is_none()
            && let Err(e) = out.write_all(bytes)
        {
            write_error = Some(e);
        }
    };
    let mut rewriter = match Rewriter::new(settings, sink) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("wasi-filter: {e}");
            return ExitCode::from(2);
        }
    };
    let mut input = std::io::stdin().lock();
    let mut chunk = [0u8; 4096];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("wasi-filter: reading standard input: {e}");
                return ExitCode::from(1);
            }
        };
        if let Err(e) = rewriter.write(&chunk[..n]) {
            eprintln!("wasi-filter: {e}");
            return ExitCode::from(1);
        }
    }
    if let Err(e) = rewriter.end() {
        eprintln!("wasi-filter: {e}");
        return ExitCode::from(1);
    }
    if write_error.is_none()
        && let Err(e) = out.flush()
    {
        write_error = Some(e);
    }
    match write_error {
        Some(e) => {
            eprintln!("wasi-filter: writing standard output: {e}");
            ExitCode::from(1)
        }
        None => ExitCode::SUCCESS,
    }
}
