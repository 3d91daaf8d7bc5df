//! [`plan`]: what the filter does with a response, decided from its headers.

use htrewrite_tower::{EtagPolicy, Predicate, Skip, fix_headers};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

/// What the filter does with one response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Rewrite the body; change the headers by `edits` first.
    Rewrite {
        /// The `Content-Type` charset parameter: the transport encoding for the sniffing.
        charset: Option<String>,
        /// The header changes (see [`plan`]).
        edits: Vec<HeaderEdit>,
    },
    /// A response to `HEAD` whose `GET` would be rewritten: no body, but the headers the `GET`
    /// gets (RFC 9110, 9.3.2), as the tower layer does.
    HeadersOnly {
        /// The header changes.
        edits: Vec<HeaderEdit>,
    },
    /// Leave the response alone, headers and body.
    Leave(Leave),
}

/// Why a response is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// The tower layer's [`Predicate`] says so: not HTML, `HEAD`, no body, partial,
    /// `Cache-Control: no-transform`, or a `Content-Encoding` (a compressed body is left alone:
    /// put a decompressor before this filter to rewrite it).
    Skip(Skip),
    /// The response announces trailers (`Trailer`): its body ends where the proxy calls
    /// `proxy_on_response_trailers`, after the last moment the body can be changed, so the
    /// rewriter's last bytes could not be sent.
    Trailers,
}

/// One change to the response headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderEdit {
    /// Remove every value of the header (lowercase name).
    Remove(String),
    /// Replace the header's values with this one.
    Replace(String, Vec<u8>),
}

/// Decides what to do with a response from the request's `method` (`:method`; `GET` when
/// unknown) and the response headers as the proxy gives them (`:status` among them).
///
/// The decision is the tower layer's: [`Predicate::check`] (default: `text/html` only), then
/// the layer's header changes ([`fix_headers`] with [`EtagPolicy::Weaken`]: `Content-Length`,
/// `Accept-Ranges` and the digest headers go, a strong `ETag` becomes weak), returned as
/// edits for the proxy's header map. Pseudo-headers and fields `http` refuses are not
/// looked at and never edited.
///
/// # Example
/// ```
/// use htrewrite_proxy_wasm::{HeaderEdit, Plan, plan};
/// let headers = [(":status", "200"), ("content-type", "text/html; charset=utf-8"), ("content-length", "42")];
/// let headers: Vec<(String, Vec<u8>)> = headers.iter().map(|(n, v)| (n.to_string(), v.as_bytes().to_vec())).collect();
/// assert_eq!(
///     plan("GET", &headers),
///     Plan::Rewrite { charset: Some("utf-8".into()), edits: vec![HeaderEdit::Remove("content-length".into())] }
/// );
/// ```
pub fn plan(method: &str, headers: &[(String, Vec<u8>)]) -> Plan {
    let method = Method::from_bytes(method.as_bytes()).unwrap_or(Method::GET);
    let mut map = HeaderMap::new();
    let mut status = StatusCode::OK;
    for (name, value) in headers {
        if name == ":status" {
            if let Some(s) =
                std::str::from_utf8(value).ok().and_then(|s| StatusCode::from_bytes(s.trim().as_bytes()).ok())
            {
                status = s;
            }
            continue;
        }
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_bytes(value)) {
            map.append(name, value);
        }
    }
    let mut parts = http::Response::new(()).into_parts().0;
    parts.status = status;
    parts.headers = map;
    let predicate = Predicate::default();
    let edits = || {
        let mut fixed = parts.headers.clone();
        fix_headers(&mut fixed, EtagPolicy::Weaken);
        edits(&parts.headers, &fixed)
    };
    match predicate.check(&method, &parts) {
        Ok(_) if parts.headers.contains_key(http::header::TRAILER) => Plan::Leave(Leave::Trailers),
        Ok(charset) => Plan::Rewrite { charset, edits: edits() },
        Err(Skip::Head) if predicate.check(&Method::GET, &parts).is_ok() => Plan::HeadersOnly { edits: edits() },
        Err(skip) => Plan::Leave(Leave::Skip(skip)),
    }
}

/// The edits that turn `before` into `after` (which only removes headers or replaces them
/// with one value).
fn edits(before: &HeaderMap, after: &HeaderMap) -> Vec<HeaderEdit> {
    let mut edits = Vec::new();
    for name in before.keys() {
        if !after.contains_key(name) {
            edits.push(HeaderEdit::Remove(name.as_str().to_owned()));
        } else if !before.get_all(name).iter().eq(after.get_all(name).iter())
            && let Some(value) = after.get(name)
        {
            edits.push(HeaderEdit::Replace(name.as_str().to_owned(), value.as_bytes().to_vec()));
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.as_bytes().to_vec())).collect()
    }

    #[test]
    fn html_is_rewritten_and_its_exact_byte_headers_go() {
        let h = headers(&[
            (":status", "200"),
            ("content-type", "text/html"),
            ("content-length", "1234"),
            ("accept-ranges", "bytes"),
            ("etag", "\"abc\""),
            ("digest", "sha-256=x"),
            ("x-kept", "1"),
        ]);
        let Plan::Rewrite { charset, edits } = plan("GET", &h) else { panic!("{:?}", plan("GET", &h)) };
        assert_eq!(charset, None);
        assert_eq!(
            edits,
            vec![
                HeaderEdit::Remove("content-length".into()),
                HeaderEdit::Remove("accept-ranges".into()),
                HeaderEdit::Replace("etag".into(), b"W/\"abc\"".to_vec()),
                HeaderEdit::Remove("digest".into()),
            ]
        );
    }

    #[test]
    fn other_responses_are_left_alone() {
        // (method, headers, why)
        type Case = (&'static str, &'static [(&'static str, &'static str)], Leave);
        let cases: &[Case] = &[
            ("GET", &[(":status", "200"), ("content-type", "application/json")], Leave::Skip(Skip::NotHtml)),
            ("GET", &[(":status", "200")], Leave::Skip(Skip::NotHtml)),
            (
                "GET",
                &[(":status", "200"), ("content-type", "text/html"), ("content-encoding", "gzip")],
                Leave::Skip(Skip::Encoded),
            ),
            ("GET", &[(":status", "206"), ("content-type", "text/html")], Leave::Skip(Skip::Partial)),
            ("GET", &[(":status", "304"), ("content-type", "text/html")], Leave::Skip(Skip::NoBody)),
            (
                "GET",
                &[(":status", "200"), ("content-type", "text/html"), ("cache-control", "no-transform")],
                Leave::Skip(Skip::NoTransform),
            ),
            ("GET", &[(":status", "200"), ("content-type", "text/html"), ("trailer", "x-checksum")], Leave::Trailers),
            ("HEAD", &[(":status", "200"), ("content-type", "text/plain")], Leave::Skip(Skip::Head)),
        ];
        for (method, h, why) in cases {
            assert_eq!(plan(method, &headers(h)), Plan::Leave(*why), "{method} {h:?}");
        }
    }

    #[test]
    fn head_gets_the_headers_get_would() {
        let h = headers(&[(":status", "200"), ("content-type", "text/html"), ("content-length", "9")]);
        assert_eq!(plan("HEAD", &h), Plan::HeadersOnly { edits: vec![HeaderEdit::Remove("content-length".into())] });
    }
}
