//! A reverse proxy that rewrites HTML pages of one upstream in flight.
//!
//! ```text
//! cargo run -p htrewrite-examples --example proxy -- \
//!     --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000 \
//!     [--rules rules.toml] [--inject-head '<script src="/x.js"></script>'] \
//!     [--upstream-timeout SECONDS] [--client-timeout SECONDS] \
//!     [--max-connections N] [--memory-limit SIZE] [--public-url http://HOST:PORT] \
//!     [--fragment 'SELECTOR=http://HOST[:PORT]/PATH']... [--fragment-concurrency N]
//! ```
//!
//! `--rules` takes the CLI's TOML rules (see `htrewrite_cli::rules`);
//! `--inject-head` appends HTML at the end of `<head>`. With `--public-url`,
//! absolute links and `Location` headers pointing at the upstream are
//! rewritten to that origin (never to the client's `Host`).
//! Gzip upstreams are decompressed, rewritten and compressed again for
//! clients that accept gzip. An upstream silent for `--upstream-timeout`
//! seconds (default 30) gets a 504 before the response head and a truncated
//! response after it (see `htrewrite_examples::proxy`). A client gets
//! `--client-timeout` seconds (default 30) to send a request head and
//! between two requests on a connection; at most `--max-connections`
//! (default 1024) are served at once; each page's rewriter holds at most
//! `--memory-limit` (default 64M, `0` for none; past it the rest of the page
//! passes through unchanged). Each `--fragment SELECTOR=URL` (repeatable)
//! replaces every element matching SELECTOR with the body of a GET of URL,
//! fetched with the proxy's client while the page streams on and streamed
//! into it as it arrives, in document order, up to `--fragment-concurrency`
//! (default 32) fetches at once per page; a fragment that fails or takes
//! longer than `--upstream-timeout` keeps its element. Set `RUST_LOG`-style tracing with a subscriber
//! of your own; this example prints the layer's counters on Ctrl-C.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use htrewrite_cli::parse_size;
use htrewrite_cli::rules::RuleSet;
use htrewrite_examples::proxy::{Config, Fragment, serve};

/// A reverse proxy that rewrites the HTML pages of one upstream in flight.
#[derive(Debug, Parser)]
#[command(name = "proxy", max_term_width = 100)]
struct Args {
    /// Where to listen.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    listen: String,
    /// The upstream, `http://HOST[:PORT]`.
    #[arg(long, value_name = "URL", value_parser = upstream)]
    upstream: http::Uri,
    /// Apply the rules of a TOML rules file (the CLI's format, `htrewrite_cli::rules`).
    #[arg(long, value_name = "FILE.toml")]
    rules: Option<PathBuf>,
    /// Append this HTML at the end of `<head>`.
    #[arg(long, value_name = "HTML")]
    inject_head: Option<String>,
    /// Seconds the upstream may send nothing: a 504 before the response head, a truncated
    /// response after it [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    upstream_timeout: Option<Duration>,
    /// Seconds a client gets to send a request head, and between two requests on a
    /// connection [default: 30].
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    client_timeout: Option<Duration>,
    /// Connections served at once; more wait [default: 1024].
    #[arg(long, value_name = "N")]
    max_connections: Option<NonZeroUsize>,
    /// Each page's rewriter holds at most this much (`64M`; `0` for none); past it the rest of
    /// the page passes through unchanged [default: 64M].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    memory_limit: Option<usize>,
    /// The proxy's public origin: absolute links and `Location` headers pointing at the upstream
    /// are rewritten to it (never to the client's `Host`).
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Replace each element matching SELECTOR with the body of URL (`http://` only), fetched
    /// and streamed in while the page goes on; repeatable.
    #[arg(long, value_name = "SELECTOR=URL")]
    fragment: Vec<Fragment>,
    /// Fragments fetched at once per page [default: 32].
    #[arg(long, value_name = "N")]
    fragment_concurrency: Option<NonZeroUsize>,
}

/// `--upstream`: an `http://` URL with a host.
fn upstream(value: &str) -> Result<http::Uri, String> {
    let uri: http::Uri = value.parse().map_err(|e| format!("{e}"))?;
    if uri.scheme_str() != Some("http") || uri.authority().is_none() {
        return Err("must be http://HOST[:PORT]".into());
    }
    Ok(uri)
}

/// A positive number of seconds (fractions allowed: `0.5`).
fn seconds(value: &str) -> Result<Duration, String> {
    let secs: f64 = value.parse().map_err(|e| format!("{e}"))?;
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| "must be a positive number of seconds".to_owned())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("proxy: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), String> {
    let mut config = Config::new(args.upstream.clone());
    if let Some(path) = &args.rules {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let set = RuleSet::from_toml_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        config.rules.rule_set = Some(Arc::new(set));
    }
    config.rules.inject_head = args.inject_head;
    config.upstream_timeout = args.upstream_timeout.unwrap_or(config.upstream_timeout);
    config.client_timeout = args.client_timeout.unwrap_or(config.client_timeout);
    config.max_connections = args.max_connections.map_or(config.max_connections, NonZeroUsize::get);
    config.memory_limit = args.memory_limit.unwrap_or(config.memory_limit);
    config.public_url = args.public_url;
    config.fragments = args.fragment;
    config.fragment_concurrency = args.fragment_concurrency.map_or(config.fragment_concurrency, NonZeroUsize::get);
    let (listen, upstream) = (args.listen, args.upstream);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&listen).await.map_err(|e| format!("{listen}: {e}"))?;
        eprintln!("proxy: listening on http://{}, forwarding to {upstream}", listener.local_addr().unwrap());
        let mut stats = None;
        tokio::select! {
            () = serve(listener, config, |s| stats = Some(s)) => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        if let Some(s) = stats {
            eprintln!(
                "proxy: {} rewritten, {} left alone, {} failures passed through, {} aborted",
                s.rewritten(),
                s.skipped(),
                s.passed_through(),
                s.aborted()
            );
        }
        Ok::<(), String>(())
    })?;
    Ok(())
}
