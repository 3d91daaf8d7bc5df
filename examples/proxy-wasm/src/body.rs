//! [`BodyRewriter`]: one response body, rewritten chunk by chunk.

use htrewrite::{IoSink, OnError, Rewriter, Sendable};
use htrewrite_rules::RuleSet;

use crate::error::{Error, ErrorKind};

/// The label of the encoding used when neither a BOM, the `Content-Type` charset nor a
/// `<meta charset>` names one: the tower layer's default, as browsers do.
pub const FALLBACK_ENCODING: &str = "windows-1252";

/// The most memory one response's rewriter may hold: the tower layer's default
/// ([`htrewrite_tower::DEFAULT_MEMORY_LIMIT`], 64 MiB). Past it the rest of the body passes
/// through unchanged ([`ErrorKind::Rewrite`]).
pub const MEMORY_LIMIT: usize = htrewrite_tower::DEFAULT_MEMORY_LIMIT;

/// One response body through the rules, chunk by chunk: each chunk's output replaces that
/// chunk in the proxy's buffer, and [`BodyRewriter::end`] gives the tail at the end of the
/// stream.
///
/// The output of a chunk is what the rewriter released while reading it: all of it, except
/// the bytes it must hold to decide (an unfinished tag at the end of the chunk; the first
/// 1,024 bytes while the `<meta charset>` prescan is pending when the `Content-Type` names no
/// charset). Failures ([`ErrorKind::Rewrite`]) never lose input: from the failing token on, the
/// rest passes through unchanged (the library's `OnError::PassThrough`), and the error is
/// returned once, for the filter to log.
///
/// # Example
/// ```
/// use htrewrite_proxy_wasm::{BodyRewriter, Config};
/// let config = Config::from_bytes(b"version = 1\ninject-head = \"<script src=/x.js></script>\"\n")?;
/// let mut body = BodyRewriter::new(config.rules().unwrap(), Some("utf-8"))?;
/// let mut out = Vec::new();
/// for chunk in ["<html><he", "ad><title>t</title></he", "ad><body>hi"] {
///     out.extend(body.write(chunk.as_bytes()).bytes);
/// }
/// out.extend(body.end().bytes);
/// assert_eq!(out, b"<html><head><title>t</title><script src=/x.js></script></head><body>hi");
/// # Ok::<(), htrewrite_proxy_wasm::Error>(())
/// ```
pub struct BodyRewriter {
    /// `None` once the rewriter could not go on: the rest passes through as it is.
    rewriter: Option<Rewriter<'static, IoSink<Vec<u8>>, Sendable>>,
    /// Whether the rewriter's kept error was returned already.
    reported: bool,
}

/// The output for one chunk, and the failure to log, once.
#[derive(Debug, Default)]
pub struct Output {
    /// The bytes that replace the chunk in the proxy's buffer.
    pub bytes: Vec<u8>,
    /// A failure: the rest of the body passes through unchanged.
    pub error: Option<Error>,
}

impl BodyRewriter {
    /// A rewriter for one body with `rules`; `charset` is the `Content-Type` charset (the
    /// transport encoding: a BOM, then it, then `<meta charset>`, then
    /// [`FALLBACK_ENCODING`], as the tower layer sniffs).
    ///
    /// # Errors
    /// [`ErrorKind::Settings`] when the rewriter cannot be made (the response is then left
    /// alone).
    pub fn new(rules: &RuleSet, charset: Option<&str>) -> Result<BodyRewriter, Error> {
        let settings_error = |e: htrewrite::RewritingError| Error::with_source(ErrorKind::Settings, e.to_string(), e);
        let settings = rules
            .settings()
            .on_error(OnError::PassThrough)
            .memory_limit(MEMORY_LIMIT)
            .sniff_encoding(charset, FALLBACK_ENCODING)
            .map_err(settings_error)?;
        let rewriter = Rewriter::new(settings, IoSink(Vec::new())).map_err(settings_error)?;
        Ok(BodyRewriter { rewriter: Some(rewriter), reported: false })
    }

    /// Rewrites the next chunk; the output replaces it.
    pub fn write(&mut self, chunk: &[u8]) -> Output {
        let Some(rewriter) = self.rewriter.as_mut() else {
            return Output { bytes: chunk.to_vec(), error: None };
        };
        match rewriter.write(chunk) {
            Ok(()) => {
                let bytes = std::mem::take(&mut rewriter.sink_mut().0);
                let error = match rewriter.error() {
                    Some(e) if !self.reported => {
                        self.reported = true;
                        Some(Error::new(ErrorKind::Rewrite, e.to_string()))
                    }
                    _ => None,
                };
                Output { bytes, error }
            }
            // Under `OnError::PassThrough` only the sink's errors come here, and a `Vec`'s
            // never fails: not reached. Were it, what the rewriter wrote is kept and the
            // chunk follows as it is, so no input is lost.
            Err(e) => {
                let mut bytes = std::mem::take(&mut rewriter.sink_mut().0);
                bytes.extend_from_slice(chunk);
                self.rewriter = None;
                Output { bytes, error: Some(Error::with_source(ErrorKind::Rewrite, e.to_string(), e)) }
            }
        }
    }

    /// Ends the body: the rewriter's tail (held bytes, content inserted at the end of elements
    /// still open, end-of-document edits), to send after the last chunk's output.
    pub fn end(self) -> Output {
        let Some(rewriter) = self.rewriter else { return Output::default() };
        match rewriter.end_with_error() {
            Ok((IoSink(bytes), error)) => Output {
                bytes,
                error: error
                    .filter(|_| !self.reported)
                    .map(|e| Error::with_source(ErrorKind::Rewrite, e.to_string(), e)),
            },
            // Not reached, as in `write`.
            Err(e) => {
                Output { bytes: Vec::new(), error: Some(Error::with_source(ErrorKind::Rewrite, e.to_string(), e)) }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    const SAMPLE: &str = include_str!("../../sample.html");

    fn rules(toml: &str) -> RuleSet {
        Config::from_bytes(toml.as_bytes()).unwrap().rules().unwrap().clone()
    }

    fn rewrite_in_chunks(rules: &RuleSet, input: &[u8], size: usize) -> (Vec<u8>, Vec<Error>) {
        let mut body = BodyRewriter::new(rules, None).unwrap();
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        for chunk in input.chunks(size.max(1)) {
            let o = body.write(chunk);
            out.extend(o.bytes);
            errors.extend(o.error);
        }
        let o = body.end();
        out.extend(o.bytes);
        errors.extend(o.error);
        (out, errors)
    }

    /// The sample page at every chunk size equals the library's one-shot rewrite with the same
    /// rules (what `htrewrite --rules` writes).
    #[test]
    fn every_chunk_size_gives_the_one_shot_output() {
        let set = rules(include_str!("../../../crates/cli/examples/rules.toml"));
        let set = htrewrite_rules::RuleSet::new(
            set.rules()
                .iter()
                .cloned()
                .chain([htrewrite_rules::Rule::inject_head(
                    "<script src=/x.js></script>",
                    htrewrite_rules::Origin::Code,
                )])
                .collect(),
        )
        .unwrap();
        let settings = set.settings().sniff_encoding(None, FALLBACK_ENCODING).unwrap();
        let want = htrewrite::rewrite_str(SAMPLE, settings).unwrap();
        assert!(want.contains("<script src=/x.js></script></head>"));
        for size in 1..=SAMPLE.len() {
            let (got, errors) = rewrite_in_chunks(&set, SAMPLE.as_bytes(), size);
            assert!(errors.is_empty(), "chunk size {size}: {errors:?}");
            assert!(got == want.as_bytes(), "chunk size {size}: output differs");
        }
    }

    /// A refused edit (text that would end a script) is reported once and the rest of the
    /// body passes through unchanged: nothing accepted is lost.
    #[test]
    fn a_failure_is_reported_once_and_the_rest_passes_through() {
        let set = rules(
            "version = 1\n[[rule]]\nselector = \"p\"\naction = \"set-attr\"\nname = \"class\"\nvalue = \"x\"\n\
             [[rule]]\nselector = \"script\"\naction = \"append-text\"\nvalue = \"</script>\"\n",
        );
        let input = b"<p>a</p><script>s</script><p>b</p>";
        for size in 1..=input.len() {
            let (got, errors) = rewrite_in_chunks(&set, input, size);
            assert_eq!(errors.len(), 1, "chunk size {size}");
            assert_eq!(errors[0].kind(), ErrorKind::Rewrite);
            assert!(errors[0].to_string().contains("append-text \"script\""), "{}", errors[0]);
            assert_eq!(got, b"<p class=\"x\">a</p><script>s</script><p>b</p>", "chunk size {size}");
        }
    }
}
