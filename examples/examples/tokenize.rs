//! Prints every token of an HTML file: kind, absolute byte span, and for tags
//! the name and attributes, for text its decoded contents (shortened).
//!
//! ```text
//! cargo run -p htrewrite-examples --example tokenize -- examples/sample.html
//! ```
//!
//! The file is read and fed in 4 KiB chunks, to show streaming: tokens come
//! out as soon as their last byte is fed, and a text run may come out in
//! several pieces (one per chunk end), whose spans join up. Parse errors are
//! printed under the token they belong to.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::process::ExitCode;

use htrewrite_shadow::{NoEvents, Shadow, ShadowOptions};
use htrewrite_tokenizer::{Feedback, ParseError, Token, TokenKind, TokenSink, Tokenizer};

/// How many characters of text, comments and attribute values are shown.
const SHOW: usize = 60;

/// A [`TokenSink`] that prints tokens and answers the tokenizer with the
/// tree-builder shadow's feedback, as the rewriter does: which text mode
/// follows a start tag (`<title>` is RCDATA in HTML, not inside `<svg>`), and
/// whether `<![CDATA[` opens a CDATA section (only in foreign content).
struct Printer<W: Write> {
    out: W,
    shadow: Shadow,
    /// The first write error; the caller stops feeding once there is one.
    failed: Option<std::io::Error>,
}

impl<W: Write> Printer<W> {
    fn print(&mut self, token: &Token<'_>) -> std::io::Result<()> {
        let span = token.span();
        let range = format!("{}..{}", span.start, span.end);
        write!(self.out, "{range:>13}  {:<26}", format!("{:?}", token.kind()))?;
        match token.kind() {
            TokenKind::StartTag | TokenKind::EndTag => {
                write!(self.out, " {}", token.tag_name())?;
                for attribute in token.attributes() {
                    write!(self.out, " {}={:?}", attribute.name, shorten(&attribute.value))?;
                    if attribute.duplicate {
                        write!(self.out, " (duplicate)")?;
                    }
                }
                if token.is_self_closing() {
                    write!(self.out, " /")?;
                }
            }
            TokenKind::Text(_) => write!(self.out, " {:?}", shorten(&token.text().unwrap_or_default()))?,
            TokenKind::Comment(_) => write!(self.out, " {:?}", shorten(&token.comment_data().unwrap_or_default()))?,
            TokenKind::Doctype => {
                let d = token.doctype().unwrap_or_default();
                write!(self.out, " name={:?} public={:?} system={:?}", d.name, d.public_id, d.system_id)?;
                if d.force_quirks {
                    write!(self.out, " force-quirks")?;
                }
            }
            TokenKind::ProcessingInstruction => {
                if let Some((target, data)) = token.processing_instruction() {
                    write!(self.out, " target={target:?} data={:?}", shorten(&data))?;
                }
            }
            TokenKind::CdataStart | TokenKind::CdataEnd | TokenKind::Dropped(_) => {
                write!(self.out, " {:?}", shorten(&String::from_utf8_lossy(token.raw())))?
            }
        }
        if token.is_eof_terminated() {
            write!(self.out, " (ended by EOF)")?;
        }
        writeln!(self.out)?;
        let mut errors = Vec::new();
        token.parse_errors(&mut |e| errors.push(e));
        for error in errors {
            writeln!(self.out, "{:>13}  ! {error}", "")?;
        }
        Ok(())
    }
}

impl<W: Write> TokenSink for Printer<W> {
    fn token(&mut self, token: &Token<'_>) -> Feedback {
        if self.failed.is_none() {
            self.failed = self.print(token).err();
        }
        self.shadow.process(token, &mut NoEvents)
    }

    fn cdata_allowed(&mut self) -> bool {
        self.shadow.cdata_allowed()
    }

    fn parse_error(&mut self, error: ParseError) {
        if self.failed.is_none() {
            self.failed = writeln!(self.out, "{:>13}  ! {error}", "").err();
        }
    }
}

/// `s` cut to [`SHOW`] characters, with `…` when cut.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(SHOW) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: tokenize FILE");
        return ExitCode::from(2);
    };
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tokenize: {}: {e}", path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

fn run(path: &std::ffi::OsStr) -> std::io::Result<()> {
    let mut file = File::open(path)?;
    let shadow = Shadow::new(ShadowOptions::default());
    let mut sink = Printer { out: BufWriter::new(std::io::stdout().lock()), shadow, failed: None };
    let mut tokenizer = Tokenizer::new();
    let mut chunk = vec![0u8; 4096];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        tokenizer.feed(&chunk[..n], &mut sink);
        if let Some(e) = sink.failed.take() {
            return Err(e);
        }
    }
    tokenizer.finish(&mut sink);
    match sink.failed.take() {
        Some(e) => Err(e),
        None => sink.out.flush(),
    }
}
