//! A reverse proxy that rewrites HTML in flight: hyper-util's client to one
//! configured upstream, [`htrewrite_tower::HtmlRewriteLayer`] between
//! tower-http's decompression (upstream side) and compression (client side).
//!
//! It forwards every request to the configured upstream only (never to a
//! host named by the request: it is no open proxy), with `Host` set to the
//! upstream's authority and `X-Forwarded-Host`/`-Proto`/`-For` added;
//! hop-by-hop headers are dropped both ways. With [`Config::public_url`], a
//! `Location` pointing at the upstream is rewritten to that public origin,
//! and so are absolute links to the upstream in `href`, `src` and `action`
//! attributes (never to the `Host` a client sent). An upstream that cannot
//! be reached is a 502.
//!
//! A stalled upstream is bounded by [`Config::upstream_timeout`]: no response
//! head within it is a 504; once the head went out, a body that sends nothing
//! for that long ends with an error ([`UpstreamStalled`]), so hyper closes
//! the client's connection (the client sees a truncated response: no last
//! chunk, or fewer bytes than its `Content-Length`) and the upstream
//! connection is dropped. Neither connection is held forever. The rewritten
//! part sent before the stall stays sent; the rest never comes. When the
//! upstream fails mid-body (a stall, or a connection closed early), every
//! byte received before reaches the client first: the layer ends the
//! document there and sends its rewrite, and [`FlushThenFail`] holds the
//! error back so that hyper writes what it buffered before it cuts the
//! response.
//!
//! Clients are bounded too ([`Config`]): a client has
//! [`Config::client_timeout`] to send a request head, and a kept-alive
//! connection is closed after as long without a new request (slow-loris
//! clients cannot hold sockets); at most [`Config::max_connections`] are
//! served at once (more wait in the listen backlog); an `accept` error
//! (out of file descriptors, a connection reset before it was accepted) is
//! logged and retried after a pause that grows to one second, never the end
//! of the server. Each page's rewriter holds at most
//! [`Config::memory_limit`] bytes ([`DEFAULT_MEMORY_LIMIT`]): a page past it
//! is passed through unchanged from that point (the layer's
//! [`ErrorPolicy::PassThrough`](htrewrite_tower::ErrorPolicy)), counted in
//! the layer's stats.
//!
//! Fragments ([`Config::fragments`], the example's `--fragment SELECTOR=URL`):
//! each element matching a fragment's selector is replaced by the body of a
//! GET of its URL, fetched with the proxy's own hyper client while the page
//! goes on streaming, and streamed into the page as it arrives (never
//! collected), in document order, at most [`Config::fragment_concurrency`]
//! at once ([`htrewrite_tokio::AsyncSettings`] under the layer). A fragment
//! that fails (no connection, a status other than 2xx, a body cut off) or
//! takes longer than [`Config::upstream_timeout`] leaves its element as it
//! was (what was streamed of it stays), logged by the layer.
//!
//! `Range` and `If-Range` are not forwarded: a byte range of an HTML page
//! cannot be rewritten (the rewritten page has other bytes), so the upstream
//! always sends whole responses and HTML ones are rewritten; a client that
//! asked for a range gets the whole `200` response, as RFC 9110 allows (a
//! server may ignore `Range`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use htrewrite::{ContentType, Selectors, Sendable, Settings};
use htrewrite_cli::rules::{Origin, Rule, RuleSet};
use htrewrite_tokio::{AsyncSettings, BoxError, Content, Defer};
use htrewrite_tower::{ErrorPolicy, HtmlRewriteLayer, Stats};
use http::header::{HOST, HeaderName, HeaderValue, IF_RANGE, LOCATION, RANGE};
use http::{HeaderMap, Request, Response, StatusCode, Uri, request, response};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyDataStream, BodyExt, Either, Empty, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::{Service, ServiceBuilder, ServiceExt};

use crate::flush::FlushThenFail;
use crate::timeout::IdleTimeout;
pub use crate::timeout::UpstreamStalled;

/// The proxy's response body.
pub type ProxyBody = UnsyncBoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

/// What the proxy does to HTML pages.
#[derive(Clone, Default)]
pub struct Rules {
    /// Rules in the CLI's TOML format (`htrewrite_cli::rules`).
    pub rule_set: Option<Arc<RuleSet>>,
    /// HTML appended at the end of `<head>`.
    pub inject_head: Option<String>,
}

/// The default of [`Config::upstream_timeout`].
pub const DEFAULT_UPSTREAM_TIMEOUT: Duration = Duration::from_secs(30);

/// The default of [`Config::client_timeout`].
pub const DEFAULT_CLIENT_TIMEOUT: Duration = Duration::from_secs(30);

/// The default of [`Config::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

pub use htrewrite_tower::DEFAULT_MEMORY_LIMIT;

/// The default of [`Config::fragment_concurrency`].
pub const DEFAULT_FRAGMENT_CONCURRENCY: usize = 32;

/// The upstream client: forwarded requests (`Left`) and fragment GETs (`Right`) share it.
type UpstreamClient = Client<HttpConnector, Either<Incoming, Empty<Bytes>>>;

/// A fragment: each element matching `selector` is replaced by the body of `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// A CSS selector.
    pub selector: String,
    /// An `http://` URL, fetched with `GET` once per matched element.
    pub url: Uri,
}

impl std::str::FromStr for Fragment {
    type Err = String;

    /// `SELECTOR=URL`, cut at the `=` before `http://` (selectors and URLs
    /// may hold `=` themselves).
    ///
    /// # Example
    /// ```
    /// use htrewrite_examples::proxy::Fragment;
    /// let f: Fragment = "esi-include[src='/a']=http://127.0.0.1:9000/x?y=1".parse()?;
    /// assert_eq!(f.selector, "esi-include[src='/a']");
    /// assert_eq!(f.url, "http://127.0.0.1:9000/x?y=1");
    /// assert!("aside=https://example.com/".parse::<Fragment>().is_err());
    /// # Ok::<(), String>(())
    /// ```
    ///
    /// # Errors
    /// No `=http://`, an empty selector, or a URL without a host.
    fn from_str(value: &str) -> Result<Fragment, String> {
        let Some(at) = value.find("=http://") else {
            return Err("must be SELECTOR=http://HOST[:PORT]/PATH".into());
        };
        let (selector, url) = (&value[..at], &value[at + 1..]);
        if selector.trim().is_empty() {
            return Err("the selector is empty".into());
        }
        let url: Uri = url.parse().map_err(|e| format!("{url}: {e}"))?;
        if url.authority().is_none() {
            return Err(format!("{url}: no host"));
        }
        Ok(Fragment { selector: selector.to_string(), url })
    }
}

/// The longest pause between two `accept` attempts after an error.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

/// The proxy's configuration; [`Config::new`] gives the defaults.
#[derive(Clone)]
pub struct Config {
    /// `http://host:port` of the upstream (the only host requests go to).
    pub upstream: Uri,
    /// What to do to HTML responses.
    pub rules: Rules,
    /// How long the upstream may send nothing: before the response head
    /// (a 504), and between two frames of the body (the response ends with
    /// an error). [`DEFAULT_UPSTREAM_TIMEOUT`] by default.
    pub upstream_timeout: Duration,
    /// How long a client may take to send a request head, and how long a
    /// kept-alive connection may wait for its next request, before the
    /// proxy closes it. [`DEFAULT_CLIENT_TIMEOUT`] by default.
    pub client_timeout: Duration,
    /// Client connections served at once; more wait until one ends.
    /// [`DEFAULT_MAX_CONNECTIONS`] by default.
    pub max_connections: usize,
    /// The memory limit of each page's rewriter
    /// ([`HtmlRewriteLayer::memory_limit`]; `0` for none).
    /// [`DEFAULT_MEMORY_LIMIT`] by default.
    pub memory_limit: usize,
    /// The proxy's public origin (`https://www.example.com`): `Location`
    /// headers and absolute links pointing at the upstream are rewritten to
    /// it. `None` (the default): they are left alone. Never taken from the
    /// request's `Host`, which a client chooses (a shared cache would keep a
    /// page with links to whatever host one client sent).
    pub public_url: Option<String>,
    /// Elements replaced by the body of a URL (see the module docs); none by default.
    pub fragments: Vec<Fragment>,
    /// Fragments fetched at once per page ([`AsyncSettings::concurrency`]).
    /// [`DEFAULT_FRAGMENT_CONCURRENCY`] by default.
    pub fragment_concurrency: usize,
}

impl Config {
    /// The configuration for `upstream` with no rules and the defaults.
    ///
    /// # Example
    /// ```
    /// use htrewrite_examples::proxy::{Config, DEFAULT_MAX_CONNECTIONS};
    /// let config = Config::new("http://127.0.0.1:8000".parse().unwrap());
    /// assert_eq!(config.max_connections, DEFAULT_MAX_CONNECTIONS);
    /// ```
    pub fn new(upstream: Uri) -> Config {
        Config {
            upstream,
            rules: Rules::default(),
            upstream_timeout: DEFAULT_UPSTREAM_TIMEOUT,
            client_timeout: DEFAULT_CLIENT_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            public_url: None,
            fragments: Vec::new(),
            fragment_concurrency: DEFAULT_FRAGMENT_CONCURRENCY,
        }
    }
}

/// Hop-by-hop headers (RFC 9110, section 7.6.1), never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

fn strip_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(http::header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|n| HeaderName::from_bytes(n.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
}

/// The attributes whose absolute links to the upstream are rewritten to the proxy's origin.
const LINK_ATTRIBUTES: [&str; 3] = ["href", "src", "action"];

/// The selector of the elements whose `attr` links to `upstream_origin`.
fn link_selector(attr: &str, upstream_origin: &str) -> String {
    format!("[{attr}^='{upstream_origin}' i]")
}

/// The rules a page gets: the rule set, then the head injection as one more rule
/// ([`Rule::inject_head`], the rules file's `inject-head`); `None` for neither.
fn page_rules(rules: &Rules) -> Option<Arc<RuleSet>> {
    let Some(html) = &rules.inject_head else { return rules.rule_set.clone() };
    let mut list = rules.rule_set.as_ref().map(|set| set.rules().to_vec()).unwrap_or_default();
    list.push(Rule::inject_head(html, Origin::Flag { flag: "--inject-head".into(), index: list.len() }));
    match RuleSet::new(list) {
        Ok(set) => Some(Arc::new(set)),
        // Not reached: the rules compiled before, and `head` is a valid selector.
        Err(error) => {
            tracing::error!(%error, "the head injection cannot join the rules; the rules alone apply");
            rules.rule_set.clone()
        }
    }
}

/// The settings for one page: the rules with the head injection ([`page_rules`]), and
/// absolute links to the upstream rewritten to the proxy's host; their selectors are
/// `compiled` (see [`compile`]), so a request compiles nothing.
fn settings(
    rules: Option<&RuleSet>,
    upstream_origin: &str,
    proxy_origin: Option<String>,
    compiled: Option<&Selectors>,
) -> Settings<'static, Sendable> {
    let mut settings = match rules {
        Some(set) => set.settings(),
        None => Settings::new_send(),
    };
    if let Some(proxy_origin) = proxy_origin {
        for attr in LINK_ATTRIBUTES {
            let from = upstream_origin.to_string();
            let to = proxy_origin.clone();
            settings = settings.element(&link_selector(attr, upstream_origin), move |el| {
                if let Some(value) = el.get_attribute(attr)
                    && value.len() >= from.len()
                    && value[..from.len()].eq_ignore_ascii_case(&from)
                {
                    let rest = &value[from.len()..];
                    if rest.is_empty() || rest.starts_with(['/', '?', '#']) {
                        el.set_attribute(attr, &format!("{to}{rest}"))?;
                    }
                }
                Ok(())
            });
        }
    }
    match compiled {
        Some(c) => settings.with_selectors(c),
        None => settings,
    }
}

/// Every selector [`settings`] registers, compiled once at start-up: the rule set's (with
/// their registration keys, `head` of the injection included) and the link selectors. `None`
/// if they do not compile (then each request compiles, and fails, as before).
fn compile(
    rules: Option<&RuleSet>,
    upstream_origin: &str,
    rewrite_links: bool,
    fragments: &[Fragment],
) -> Option<Selectors> {
    let mut list: Vec<String> = rules.map(|s| s.selectors().as_slice().to_vec()).unwrap_or_default();
    if rewrite_links {
        list.extend(LINK_ATTRIBUTES.iter().map(|attr| link_selector(attr, upstream_origin)));
    }
    list.extend(fragments.iter().map(|f| f.selector.clone()));
    Selectors::new(list).ok()
}

/// The layer's factory: every HTML page gets [`settings`], with the selectors (the
/// fragments' included) compiled once.
fn factory(
    rules: Rules,
    upstream_origin: String,
    public_origin: Option<String>,
    fragments: &[Fragment],
) -> impl Fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>> + Send + Sync + Clone + 'static {
    let rules = page_rules(&rules);
    let compiled = compile(rules.as_deref(), &upstream_origin, public_origin.is_some(), fragments);
    move |_, _| Some(settings(rules.as_deref(), &upstream_origin, public_origin.clone(), compiled.as_ref()))
}

/// `settings` with an async handler per fragment: each matched element is replaced by the
/// body of its URL, fetched with `client` and streamed in.
fn with_fragments(
    settings: Settings<'static, Sendable>,
    fragments: &[Fragment],
    client: &UpstreamClient,
    concurrency: usize,
    timeout: Duration,
) -> AsyncSettings<'static, Sendable> {
    let mut settings = AsyncSettings::new(settings).concurrency(concurrency).timeout(timeout);
    for fragment in fragments {
        let (client, url) = (client.clone(), fragment.url.clone());
        settings = settings.element_async(&fragment.selector, Defer::Replace, move |_| {
            Some(fetch_fragment(client.clone(), url.clone()))
        });
    }
    settings
}

/// The layer's factory with the fragments of `config`: `make`'s settings, each fragment an
/// async handler fetching with `client` (see [`with_fragments`]).
fn fragment_factory(
    make: impl Fn(&request::Parts, &response::Parts) -> Option<Settings<'static, Sendable>> + Send + Sync + 'static,
    config: &Config,
    client: UpstreamClient,
) -> impl Fn(&request::Parts, &response::Parts) -> Option<AsyncSettings<'static, Sendable>> + Send + Sync + 'static {
    let (fragments, concurrency, timeout) =
        (config.fragments.clone(), config.fragment_concurrency, config.upstream_timeout);
    move |req, res| Some(with_fragments(make(req, res)?, &fragments, &client, concurrency, timeout))
}

/// A fragment's body, streamed as it arrives.
async fn fetch_fragment(client: UpstreamClient, url: Uri) -> Result<Content, BoxError> {
    let req = Request::get(url.clone()).body(Either::Right(Empty::new()))?;
    let res = client.request(req).await?;
    if !res.status().is_success() {
        return Err(format!("{url}: status {}", res.status()).into());
    }
    Ok(Content::stream(BodyDataStream::new(res.into_body()), ContentType::Html))
}

/// A plain-text error response from the proxy itself (502, 504).
fn gateway_error(status: StatusCode, message: String) -> Response<ProxyBody> {
    let mut res = Response::new(Full::new(Bytes::from(message)).map_err(|e| match e {}).boxed_unsync());
    *res.status_mut() = status;
    res.headers_mut().insert(http::header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    res
}

/// Serves the proxy on `listener` until the task is dropped; returns the layer's counters
/// through `on_stats` before serving. Errors of `accept` are logged and retried (see the
/// module docs): serving ends only when the task is dropped.
pub async fn serve(listener: TcpListener, config: Config, on_stats: impl FnOnce(Stats)) {
    let upstream_authority = config.upstream.authority().expect("upstream has an authority").clone();
    let upstream_origin = format!("http://{upstream_authority}");
    let client: UpstreamClient = Client::builder(TokioExecutor::new()).build_http();
    let public_origin = config.public_url.as_deref().map(|u| u.trim_end_matches('/').to_string());
    let idle = config.upstream_timeout;
    let make = factory(config.rules.clone(), upstream_origin.clone(), public_origin.clone(), &config.fragments);
    let layer = HtmlRewriteLayer::new_async(fragment_factory(make, &config, client.clone()))
        .on_error(ErrorPolicy::PassThrough)
        .memory_limit(config.memory_limit);
    on_stats(layer.stats());
    let service = ServiceBuilder::new()
        .layer(tower_http::compression::CompressionLayer::new())
        .layer(layer)
        .layer(tower_http::decompression::DecompressionLayer::new())
        .map_response(move |res: Response<Incoming>| res.map(|body| IdleTimeout::new(body, idle)))
        .map_request(|req: Request<Incoming>| req.map(Either::Left))
        .service(client);

    let connections = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let mut backoff = Duration::ZERO;
    loop {
        let permit = Arc::clone(&connections).acquire_owned().await.expect("the semaphore is never closed");
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => {
                backoff = Duration::ZERO;
                accepted
            }
            Err(error) => {
                // EMFILE, ENFILE, ENOBUFS, ECONNABORTED…: the listener itself still works.
                backoff = (backoff * 2).clamp(Duration::from_millis(10), MAX_ACCEPT_BACKOFF);
                tracing::warn!(%error, ?backoff, "accept failed; retrying");
                tokio::time::sleep(backoff).await;
                continue;
            }
        };
        let service = service.clone();
        let upstream_authority = upstream_authority.clone();
        let upstream_origin = upstream_origin.clone();
        let public_origin = public_origin.clone();
        let handle = hyper::service::service_fn(move |req: Request<Incoming>| {
            let service = service.clone();
            let authority = upstream_authority.clone();
            let upstream_origin = upstream_origin.clone();
            let public_origin = public_origin.clone();
            async move {
                let res = forward(service, req, peer, authority, upstream_origin, public_origin, idle).await;
                Ok::<_, Infallible>(res.map(|body| FlushThenFail::new(body).boxed_unsync()))
            }
        });
        let client_timeout = config.client_timeout;
        tokio::spawn(async move {
            let _permit = permit;
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(client_timeout)
                .serve_connection(TokioIo::new(stream), handle);
            if let Err(error) = conn.await {
                tracing::debug!(%error, %peer, "connection ended with an error");
            }
        });
    }
}

/// Forwards one request to the upstream and fixes up the response.
async fn forward<S, B>(
    service: S,
    req: Request<Incoming>,
    peer: SocketAddr,
    authority: http::uri::Authority,
    upstream_origin: String,
    public_origin: Option<String>,
    timeout: Duration,
) -> Response<ProxyBody>
where
    S: Service<Request<Incoming>, Response = Response<B>>,
    S::Error: std::fmt::Display,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let (mut parts, body) = req.into_parts();
    let client_host = parts.headers.get(HOST).cloned();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = match Uri::builder().scheme("http").authority(authority.clone()).path_and_query(path).build() {
        Ok(uri) => uri,
        Err(e) => return gateway_error(StatusCode::BAD_GATEWAY, format!("bad request target: {e}\n")),
    };
    strip_hop_by_hop(&mut parts.headers);
    // A byte range of a page cannot be rewritten: always ask for whole responses.
    parts.headers.remove(RANGE);
    parts.headers.remove(IF_RANGE);
    if let Some(host) = client_host {
        parts.headers.insert(HeaderName::from_static("x-forwarded-host"), host);
    }
    parts.headers.insert(HeaderName::from_static("x-forwarded-proto"), HeaderValue::from_static("http"));
    if let Ok(v) = HeaderValue::from_str(&peer.ip().to_string()) {
        parts.headers.append(HeaderName::from_static("x-forwarded-for"), v);
    }
    // The upstream gets its own Host.
    let upstream_host = HeaderValue::from_str(authority.as_str()).expect("authority is a valid header value");
    let mut req = Request::from_parts(parts, body);
    req.headers_mut().insert(HOST, upstream_host);
    match tokio::time::timeout(timeout, service.oneshot(req)).await {
        Err(_elapsed) => {
            tracing::warn!(?timeout, "upstream sent no response head in time");
            gateway_error(StatusCode::GATEWAY_TIMEOUT, format!("upstream sent no response in {timeout:?}\n"))
        }
        Ok(Ok(res)) => {
            let (mut parts, body) = res.into_parts();
            // Our own framing towards the client (an HTTP/1.0 upstream would otherwise make
            // the server close every connection).
            parts.version = http::Version::HTTP_11;
            strip_hop_by_hop(&mut parts.headers);
            if let (Some(location), Some(public_origin)) = (parts.headers.get(LOCATION), &public_origin)
                && let Ok(location) = location.to_str()
                && location.len() >= upstream_origin.len()
                && location[..upstream_origin.len()].eq_ignore_ascii_case(&upstream_origin)
                && let Ok(v) = HeaderValue::from_str(&format!("{public_origin}{}", &location[upstream_origin.len()..]))
            {
                parts.headers.insert(LOCATION, v);
            }
            Response::from_parts(parts, body.map_err(Into::into).boxed_unsync())
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "upstream request failed");
            gateway_error(StatusCode::BAD_GATEWAY, format!("upstream error: {e}\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 20, item 5: a request compiles no selector, whatever the rules: 10,000 rules (a
    /// selector repeated after others included), the head injection and the link rewriting are
    /// all compiled once, at start-up, and repeats of a selector are compiled once.
    #[test]
    fn requests_compile_no_selector() {
        let mut toml = String::from("version = 1\n");
        for i in 0..5_000 {
            toml.push_str(&format!("[[rule]]\nselector = \"p.c{i}\"\naction = \"remove\"\n"));
            toml.push_str("[[rule]]\nselector = \"a\"\naction = \"set-attr\"\nname = \"x\"\nvalue = \"1\"\n");
        }
        let set = RuleSet::from_toml_str(&toml).expect("valid rules");
        assert_eq!(set.selectors().compiled_len(), 5_001, "5,000 distinct selectors and one repeated 5,000 times");
        let rules = Rules { rule_set: Some(Arc::new(set)), inject_head: Some("<script src=/x.js></script>".into()) };
        let make = factory(rules, "http://upstream:8080".into(), Some("https://public.example".into()), &[]);
        let (req, _) = http::Request::new(()).into_parts();
        let (res, _) = http::Response::new(()).into_parts();
        for _ in 0..3 {
            let settings = make(&req, &res).expect("HTML pages are rewritten");
            assert!(!settings.compiles_selectors());
        }
        let page = "<head></head><a href='http://upstream:8080/y'>y</a><p class=c7>z</p>";
        let out = htrewrite::rewrite_str(page, make(&req, &res).expect("settings")).expect("rewrite");
        assert_eq!(out, "<head><script src=/x.js></script></head><a href='https://public.example/y' x=\"1\">y</a>");
    }
}
