//! A reverse proxy that rewrites HTML pages of one upstream in flight.
//!
//! ```text
//! cargo run -p htrewrite-examples --example proxy -- \
//!     --listen 127.0.0.1:8080 --upstream http://127.0.0.1:8000 \
//!     [--rules rules.toml] [--inject-head '<script src="/x.js"></script>'] \
//!     [--upstream-timeout SECONDS] [--client-timeout SECONDS] \
//!     [--max-connections N] [--memory-limit SIZE] [--public-url http://HOST:PORT]
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
//! passes through unchanged). Set `RUST_LOG`-style tracing with a subscriber
//! of your own; this example prints the layer's counters on Ctrl-C.

use std::process::ExitCode;
use std::sync::Arc;

use htrewrite_cli::parse_size;
use htrewrite_cli::rules::RuleSet;
use htrewrite_examples::proxy::{Config, serve};

const USAGE: &str = "usage: proxy --upstream http://HOST:PORT [--listen ADDR:PORT] [--rules FILE.toml] \
                     [--inject-head HTML] [--upstream-timeout SECONDS] [--client-timeout SECONDS] \
                     [--max-connections N] [--memory-limit SIZE] [--public-url URL]";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("proxy: {message}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let mut listen = "127.0.0.1:8080".to_string();
    let mut upstream = None;
    // The upstream is set below, once known.
    let mut config = Config::new(http::Uri::default());
    let seconds = |flag: &str, value: String| -> Result<std::time::Duration, String> {
        let secs: f64 = value.parse().map_err(|e| format!("{flag}: {e}"))?;
        std::time::Duration::try_from_secs_f64(secs)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| format!("{flag} must be a positive number of seconds"))
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--listen" => listen = value()?,
            "--upstream" => upstream = Some(value()?),
            "--rules" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                let set = RuleSet::from_toml_str(&text).map_err(|e| format!("{path}: {e}"))?;
                config.rules.rule_set = Some(Arc::new(set));
            }
            "--inject-head" => config.rules.inject_head = Some(value()?),
            "--upstream-timeout" => config.upstream_timeout = seconds(&arg, value()?)?,
            "--client-timeout" => config.client_timeout = seconds(&arg, value()?)?,
            "--max-connections" => {
                config.max_connections =
                    value()?.parse().ok().filter(|&n| n > 0).ok_or("--max-connections must be a positive integer")?;
            }
            "--public-url" => config.public_url = Some(value()?),
            "--memory-limit" => {
                config.memory_limit = parse_size(&value()?).map_err(|e| format!("--memory-limit: {e}"))?
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let upstream: http::Uri =
        upstream.ok_or("--upstream is required")?.parse().map_err(|e| format!("--upstream: {e}"))?;
    if upstream.scheme_str() != Some("http") || upstream.authority().is_none() {
        return Err("--upstream must be http://HOST[:PORT]".into());
    }
    config.upstream = upstream.clone();
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
