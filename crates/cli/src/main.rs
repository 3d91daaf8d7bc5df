//! `htrewrite`: a streaming, lossless HTML rewriting filter (see `htrewrite --help`).
//!
//! args → config ([`args`]) → run ([`run`], [`read`]); every failure is a
//! [`failure::Failure`] with its exit code and an `htrewrite:` message.
#![forbid(unsafe_code)]

mod args;
mod cleanup;
mod failure;
mod read;
mod run;

use std::process::ExitCode;

fn main() -> ExitCode {
    // A panic is a bug: one line on stderr, exit 4, no backtrace.
    std::panic::set_hook(Box::new(|info| eprintln!("htrewrite: internal error: {info}")));
    match std::panic::catch_unwind(|| args::parse(std::env::args_os()).and_then(run::run)) {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(failure)) => failure.report(),
        Err(_) => ExitCode::from(4),
    }
}
