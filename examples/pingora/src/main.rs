//! A [pingora](https://github.com/cloudflare/pingora) reverse proxy that streams HTML responses
//! through htrewrite (issue 21): a `ProxyHttp` whose `response_filter` decides, as the tower
//! layer does ([`htrewrite_tower::Predicate`]), whether a response may be rewritten and fixes its
//! headers ([`htrewrite_tower::fix_headers`]: `Content-Length`, `Accept-Ranges`, digests go, a
//! strong `ETag` becomes weak), and whose `response_body_filter` feeds each body chunk to a
//! `Send` rewriter and hands on what it wrote: nothing is collected.
//!
//! ```sh
//! cargo run --manifest-path examples/pingora/Cargo.toml -- \
//!     --listen 127.0.0.1:8080 --upstream 127.0.0.1:8000 \
//!     [--rules rules.toml] [--inject-head '<script src="/x.js"></script>']
//! ```
//!
//! The rules are the CLI's rules file (`htrewrite-rules`), `--inject-head` the same rule as the
//! hyper proxy's. A failure while rewriting (a memory limit, content refused) passes the rest of
//! the body through unchanged (`OnError::PassThrough`): the client gets a whole page. Responses
//! that are not HTML, compressed, partial, `no-transform`, to `HEAD` (whose headers are fixed
//! as the `GET`'s would be) or without a body pass as they are.
//!
//! Tested on loopback with curl by `examples/pingora/check.sh` (run by `.ci/run`).

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use clap::Parser;
use htrewrite::{IoSink, OnError, Rewriter, Sendable};
use htrewrite_rules::{Origin, Rule, RuleSet};
use htrewrite_tower::{EtagPolicy, Predicate, Skip, fix_headers};
use http::Method;
use pingora::http::ResponseHeader;
use pingora::prelude::*;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(name = "htrewrite-pingora", about = "A pingora reverse proxy that rewrites HTML with htrewrite")]
struct Args {
    /// Address to listen on (host:port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// The upstream server (host:port, plain HTTP/1.1).
    #[arg(long)]
    upstream: String,
    /// A rules file (the CLI's format, version 1).
    #[arg(long)]
    rules: Option<PathBuf>,
    /// HTML appended at the end of every page's `<head>`.
    #[arg(long)]
    inject_head: Option<String>,
}

/// A rewriter writing into a buffer that each body chunk empties.
type PageRewriter = Rewriter<'static, IoSink<Vec<u8>>, Sendable>;

/// The proxy: where requests go and the rules for every page.
struct RewriteProxy {
    upstream: String,
    rules: Arc<RuleSet>,
}

/// Per request: the rewriter of the response body, when it is rewritten. In a mutex because
/// pingora's filters take a `Send + Sync` context (handlers are `Send`, not `Sync`).
#[derive(Default)]
struct Ctx {
    rewriter: Mutex<Option<PageRewriter>>,
}

impl RewriteProxy {
    /// A rewriter for a page whose `Content-Type` charset is `charset`: the
    /// encoding sniffed as the tower layer and browsers do (BOM, then the
    /// charset, then `<meta charset>`, then windows-1252).
    fn rewriter(&self, charset: Option<&str>) -> Option<PageRewriter> {
        let settings =
            self.rules.settings().on_error(OnError::PassThrough).sniff_encoding(charset, "windows-1252").ok()?;
        Rewriter::new(settings, IoSink(Vec::new())).ok()
    }
}

/// Applies [`fix_headers`]'s changes to a pingora header, through its own methods (they keep
/// the original case of header names).
fn fix_pingora_headers(header: &mut ResponseHeader) -> Result<()> {
    let mut fixed = header.headers.clone();
    fix_headers(&mut fixed, EtagPolicy::Weaken);
    let gone: Vec<_> = header.headers.keys().filter(|n| !fixed.contains_key(*n)).cloned().collect();
    for name in gone {
        header.remove_header(&name);
    }
    for (name, value) in &fixed {
        if header.headers.get(name) != Some(value) {
            header.insert_header(name.clone(), value.clone())?;
        }
    }
    Ok(())
}

#[async_trait]
impl ProxyHttp for RewriteProxy {
    type CTX = Ctx;

    fn new_ctx(&self) -> Ctx {
        Ctx::default()
    }

    async fn upstream_peer(&self, _session: &mut Session, _ctx: &mut Ctx) -> Result<Box<HttpPeer>> {
        Ok(Box::new(HttpPeer::new(self.upstream.as_str(), false, String::new())))
    }

    async fn response_filter(&self, session: &mut Session, response: &mut ResponseHeader, ctx: &mut Ctx) -> Result<()> {
        let method = session.req_header().method.clone();
        let predicate = Predicate::default();
        match predicate.check(&method, response) {
            Ok(charset) => {
                let Some(rw) = self.rewriter(charset.as_deref()) else { return Ok(()) };
                fix_pingora_headers(response)?;
                *ctx.rewriter.lock().unwrap_or_else(PoisonError::into_inner) = Some(rw);
            }
            // A HEAD gets the headers its GET would have.
            Err(Skip::Head) if predicate.check(&Method::GET, response).is_ok() => fix_pingora_headers(response)?,
            Err(_) => {}
        }
        Ok(())
    }

    fn response_body_filter(
        &self,
        _session: &mut Session,
        body: &mut Option<Bytes>,
        end_of_stream: bool,
        ctx: &mut Ctx,
    ) -> Result<Option<Duration>> {
        let mut slot = ctx.rewriter.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(rw) = slot.as_mut() else { return Ok(None) };
        if let Some(chunk) = body.take() {
            // Under OnError::PassThrough a failure passes the input on: only the output can fail.
            rw.write(&chunk).map_err(|e| Error::because(InternalError, "rewriting the body", e))?;
        }
        let mut out = std::mem::take(&mut rw.sink_mut().0);
        if end_of_stream {
            let rw = slot.take().expect("a rewriter");
            let rest = rw.end().map_err(|e| Error::because(InternalError, "ending the body", e))?;
            out.extend_from_slice(&rest.0);
        }
        if !out.is_empty() || end_of_stream {
            *body = Some(Bytes::from(out));
        }
        Ok(None)
    }
}

fn main() {
    let args = Args::parse();
    let mut rules = match &args.rules {
        Some(path) => {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| exit(&format!("{}: {e}", path.display())));
            let set = RuleSet::from_toml_str(&text)
                .unwrap_or_else(|e| exit(&format!("{}: {e}", path.display())))
                .in_file(&path.display().to_string());
            set.rules().to_vec()
        }
        None => Vec::new(),
    };
    if let Some(html) = &args.inject_head {
        rules.push(Rule::inject_head(html, Origin::Flag { flag: "--inject-head".into(), index: 0 }));
    }
    let rules = RuleSet::new(rules).unwrap_or_else(|e| exit(&e.to_string()));
    let mut server = Server::new(None).unwrap_or_else(|e| exit(&e.to_string()));
    server.bootstrap();
    let proxy = RewriteProxy { upstream: args.upstream.clone(), rules: Arc::new(rules) };
    let mut service = http_proxy_service(&server.configuration, proxy);
    service.add_tcp(&args.listen);
    server.add_service(service);
    eprintln!("htrewrite-pingora: listening on http://{}, forwarding to {}", args.listen, args.upstream);
    server.run_forever();
}

/// Prints `message` and exits with status 2 (bad arguments or rules).
fn exit(message: &str) -> ! {
    eprintln!("htrewrite-pingora: {message}");
    std::process::exit(2)
}
