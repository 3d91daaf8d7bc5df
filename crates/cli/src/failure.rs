//! Why a run failed, and the exit code each failure maps to.

use std::io;
use std::process::ExitCode;

use htrewrite::RewritingError;

/// A failed run. Each kind has its exit code; messages go to stderr
/// prefixed `htrewrite:`.
#[derive(Debug)]
pub enum Failure {
    /// `--help` or `--version`: clap prints it, exit 0.
    Help(clap::Error),
    /// Exit 2: bad arguments, rules or selectors.
    Usage(String),
    /// Exit 3: an input could not be read or the output written.
    Io(String),
    /// Exit 4: the rewrite failed (a refused edit, the memory limit, an encoding).
    Rewrite(String),
    /// The reader of our output went away (`| head`): exit 0, quietly.
    BrokenPipe,
}

impl Failure {
    /// A clap error: help and version are not failures, the rest are usage errors.
    pub fn from_clap(e: clap::Error) -> Failure {
        use clap::error::ErrorKind;
        match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => Failure::Help(e),
            _ => {
                let text = e.render().to_string();
                let text = text.strip_prefix("error: ").unwrap_or(&text).trim_end().to_string();
                Failure::Usage(text)
            }
        }
    }

    /// Exit 3 when standard output was closed as the process started
    /// (`htrewrite page.html >&-`), checked before anything is written to
    /// it: without the check the run would "succeed" into nothing, because
    /// Rust's runtime reopens a closed standard descriptor on `/dev/null`
    /// before `main`. On Linux that reopening is recognised from
    /// `/proc/self`: descriptor 1 is `/dev/null` opened read-write, which a
    /// shell's `>/dev/null` does not do (it opens it write-only; the one
    /// redirection taken for a closed output is `1<>/dev/null`). Elsewhere
    /// no check is made.
    ///
    /// # Errors
    /// [`Failure::Io`] naming stdout when it was closed.
    pub fn stdout_open() -> Result<(), Failure> {
        if stdout_reopened_by_runtime() {
            return Err(Failure::Io("cannot write stdout: it is closed".into()));
        }
        Ok(())
    }

    /// An output error: a broken pipe is quiet, others are I/O failures.
    pub fn output(e: &io::Error, what: &str) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::BrokenPipe
        } else {
            Failure::Io(format!("cannot write {what}: {e}"))
        }
    }

    /// A failure of the rewriter on input `name`.
    pub fn rewriting(e: RewritingError, name: &str, output: &str) -> Failure {
        match e {
            RewritingError::Output(io) => Failure::output(&io, output),
            RewritingError::Selector { .. } => Failure::Usage(e.to_string()),
            // Issue 20, item 9: an encoding that cannot be rewritten (ISO-2022-JP, the
            // replacement encoding): say what still works.
            RewritingError::Encoding(_) => Failure::Rewrite(format!(
                "{name}: {e}; read-only modes (--select, --text-of, --count, --attr) decode it, and \
                 --encoding LABEL overrides a wrong declaration"
            )),
            other => Failure::Rewrite(format!("{name}: {other}")),
        }
    }

    /// The exit code and message of a failure that has them (not help, version or a broken pipe).
    pub fn code_and_message(&self) -> Option<(u8, &str)> {
        match self {
            Failure::Help(_) | Failure::BrokenPipe => None,
            Failure::Usage(m) => Some((2, m)),
            Failure::Io(m) => Some((3, m)),
            Failure::Rewrite(m) => Some((4, m)),
        }
    }

    /// Prints the message and gives the exit code.
    pub fn report(self) -> ExitCode {
        ExitCode::from(self.report_code())
    }

    /// Prints the message (help and version on stdout, failures on stderr)
    /// and gives the exit code as a number.
    pub fn report_code(self) -> u8 {
        let (code, message) = match self {
            Failure::Help(e) => {
                let _ = e.print();
                return 0;
            }
            Failure::BrokenPipe => return 0,
            Failure::Usage(m) => (2, m),
            Failure::Io(m) => (3, m),
            Failure::Rewrite(m) => (4, m),
        };
        eprintln!("htrewrite: {message}");
        code
    }

    /// Whether the run can go on with the next input after this failure
    /// (one input unreadable or failing to rewrite), or must stop (bad
    /// usage, the output gone).
    pub fn is_per_input(&self) -> bool {
        matches!(self, Failure::Io(_) | Failure::Rewrite(_))
    }
}

/// See [`Failure::stdout_open`].
#[cfg(target_os = "linux")]
fn stdout_reopened_by_runtime() -> bool {
    let is_null = std::fs::read_link("/proc/self/fd/1").is_ok_and(|t| t == std::path::Path::new("/dev/null"));
    is_null
        && std::fs::read_to_string("/proc/self/fdinfo/1").is_ok_and(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                // O_ACCMODE == O_RDWR
                .is_some_and(|flags| flags & 0o3 == 0o2)
        })
}

/// See [`Failure::stdout_open`].
#[cfg(not(target_os = "linux"))]
fn stdout_reopened_by_runtime() -> bool {
    false
}
