//! [`Predicate`]: whether a response may be rewritten, and its charset; [`fix_headers`]: the
//! headers of a rewritten one.

use http::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, ETAG, HeaderMap,
    HeaderValue,
};
use http::{Method, StatusCode, response};

use crate::layer::EtagPolicy;

/// Headers that digest the exact bytes of the representation.
const DIGEST_HEADERS: [&str; 4] = ["digest", "content-digest", "repr-digest", "content-md5"];

/// Decides whether a response is safe to rewrite.
///
/// # Example
/// ```
/// use htrewrite_tower::{Predicate, Skip};
/// let res = http::Response::builder().header("content-type", "text/html; charset=\"Shift_JIS\"").body(()).unwrap();
/// let (parts, ()) = res.into_parts();
/// let p = Predicate::default();
/// assert_eq!(p.check(&http::Method::GET, &parts), Ok(Some("Shift_JIS".to_string())));
/// assert_eq!(p.check(&http::Method::HEAD, &parts), Err(Skip::Head));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Predicate {
    /// Rewrite `application/xhtml+xml` too (off by default: it is parsed as
    /// XML by browsers, and the rewriter parses HTML).
    pub xhtml: bool,
}

/// Why a response is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Skip {
    /// A response to `HEAD` (no body).
    Head,
    /// 1xx, 204 or 304 (no body).
    NoBody,
    /// 206 or a `Content-Range` header (a part of a document).
    Partial,
    /// `Content-Type` is missing or not HTML.
    NotHtml,
    /// `Cache-Control: no-transform`.
    NoTransform,
    /// `Content-Encoding` other than `identity` (decompress first).
    Encoded,
}

impl Predicate {
    /// `Ok(charset)` (the `Content-Type` charset parameter, if any) when the
    /// response to a `method` request may be rewritten, else why not.
    ///
    /// # Errors
    /// The [`Skip`] reason.
    pub fn check(&self, method: &Method, res: &response::Parts) -> Result<Option<String>, Skip> {
        if method == Method::HEAD {
            return Err(Skip::Head);
        }
        let status = res.status;
        if status.is_informational() || status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED {
            return Err(Skip::NoBody);
        }
        if status == StatusCode::PARTIAL_CONTENT || res.headers.contains_key(CONTENT_RANGE) {
            return Err(Skip::Partial);
        }
        let content_type = res.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).ok_or(Skip::NotHtml)?;
        let mut params = content_type.split(';');
        let essence = params.next().unwrap_or("").trim();
        let html = essence.eq_ignore_ascii_case("text/html")
            || (self.xhtml && essence.eq_ignore_ascii_case("application/xhtml+xml"));
        if !html {
            return Err(Skip::NotHtml);
        }
        let no_transform = res.headers.get_all(CACHE_CONTROL).iter().filter_map(|v| v.to_str().ok()).any(|v| {
            v.split(',').any(|d| d.trim().split('=').next().unwrap_or("").eq_ignore_ascii_case("no-transform"))
        });
        if no_transform {
            return Err(Skip::NoTransform);
        }
        let encoded = res.headers.get_all(CONTENT_ENCODING).iter().any(|v| {
            v.to_str().map_or(true, |v| {
                v.split(',').any(|c| !c.trim().is_empty() && !c.trim().eq_ignore_ascii_case("identity"))
            })
        });
        if encoded {
            return Err(Skip::Encoded);
        }
        let charset = params.find_map(|p| {
            let (name, value) = p.split_once('=')?;
            name.trim().eq_ignore_ascii_case("charset").then(|| value.trim().trim_matches('"').to_string())
        });
        Ok(charset.filter(|c| !c.is_empty()))
    }
}

/// Drops or weakens the headers that describe the exact bytes, as the layer does to every
/// response it rewrites (and to a `HEAD` whose `GET` it would rewrite): `Content-Length`,
/// `Accept-Ranges` and the digest headers (`Digest`, `Content-Digest`, `Repr-Digest`,
/// `Content-MD5`) go; a strong `ETag` becomes weak, or goes, as `etag` says. Public so that
/// other hosts of the rewriter (the proxy-wasm filter) treat headers the same way.
///
/// # Example
/// ```
/// use htrewrite_tower::{EtagPolicy, fix_headers};
/// let mut headers = http::HeaderMap::new();
/// headers.insert("content-length", "42".parse()?);
/// headers.insert("etag", "\"v1\"".parse()?);
/// headers.insert("content-type", "text/html".parse()?);
/// fix_headers(&mut headers, EtagPolicy::Weaken);
/// assert_eq!(headers.get("content-length"), None);
/// assert_eq!(headers["etag"], "W/\"v1\"");
/// assert_eq!(headers["content-type"], "text/html");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fix_headers(headers: &mut HeaderMap, etag: EtagPolicy) {
    headers.remove(CONTENT_LENGTH);
    headers.remove(ACCEPT_RANGES);
    for name in DIGEST_HEADERS {
        headers.remove(name);
    }
    match etag {
        EtagPolicy::Drop => {
            headers.remove(ETAG);
        }
        EtagPolicy::Weaken => {
            if let Some(value) = headers.get(ETAG)
                && !value.as_bytes().starts_with(b"W/")
            {
                let mut weak = b"W/".to_vec();
                weak.extend_from_slice(value.as_bytes());
                match HeaderValue::from_bytes(&weak) {
                    Ok(weak) => {
                        headers.insert(ETAG, weak);
                    }
                    Err(_) => {
                        headers.remove(ETAG);
                    }
                }
            }
        }
    }
}
