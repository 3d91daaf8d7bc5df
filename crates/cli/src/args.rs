//! Command-line arguments: the clap definition, and the actions in the
//! order they were given (clap keeps each flag's values apart, so the order
//! across different flags comes from [`ArgMatches::indices_of`]).

use std::path::PathBuf;

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, ValueEnum};
use clap_complete::Shell;
use htrewrite_cli::parse_size;
use htrewrite_cli::rules::{Action, Origin, Rule, RuleSet};

use crate::failure::Failure;

const EXAMPLES: &str = "\
Examples:
  # lazy-load images, drop trackers, mark external links
  htrewrite --set-attr img loading lazy --remove 'script[src*=tracker]' \\
            --set-attr 'a[href^=http]' rel noopener page.html > out.html
  # the same from a rules file, rewriting files in place
  htrewrite --rules rules.toml --in-place site/*.html
  # would anything change? (exit 1 if so) and how
  htrewrite --rules rules.toml --check --diff page.html
  # read-only: outer HTML, text, counts, attribute values
  curl -s https://example.com | htrewrite --select 'h1, h2' | head
  htrewrite --attr 'a[href]' href page.html
  htrewrite --count img page.html
  # a fragment parsed as the content of a <tbody>
  echo '<tr><td>1' | htrewrite --fragment tbody --set-attr td class n

Exit codes: 0 success, 1 --check found changes, 2 usage or rules error,
3 input/output error, 4 rewriting error (refused edit, memory limit, encoding).";

/// htrewrite: a streaming, lossless HTML rewriter. Reads HTML (files, or
/// stdin when none or `-`), applies the actions in the order given, and
/// writes the result to stdout as it goes; bytes no action touches pass
/// through unchanged.
#[derive(Debug, Parser)]
#[command(name = "htrewrite", version, after_help = EXAMPLES, max_term_width = 100)]
pub struct Cli {
    /// Input files (stdin when none, or `-`).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    #[command(flatten)]
    pub actions: ActionArgs,

    /// Apply the rules of a TOML rules file (in order with the other actions).
    #[arg(long, value_name = "FILE", help_heading = "Actions (repeatable, applied in the order given)")]
    pub rules: Vec<PathBuf>,

    #[command(flatten)]
    pub read: ReadArgs,

    /// Rewrite each FILE in place (atomically, via a temporary file in its folder; keeps permissions).
    /// As `sed -i`: a symbolic link is replaced by the rewritten file (its target is left
    /// alone), a hard link is broken, a read-only file in a writable folder is rewritten; a FILE
    /// that is not a regular file (a FIFO, a device) is refused.
    #[arg(long, short = 'i', help_heading = "Output")]
    pub in_place: bool,
    /// Read-only modes: end each printed value with a NUL byte instead of a newline, so values
    /// that contain newlines stay apart (as `find -print0`, for `xargs -0`).
    #[arg(long = "null", short = '0', help_heading = "Output")]
    pub null: bool,
    /// Write nothing; exit 1 if the rewrite would change any input.
    #[arg(long, help_heading = "Output")]
    pub check: bool,
    /// Print a unified diff of the changes (holds each document in memory).
    #[arg(long, help_heading = "Output")]
    pub diff: bool,
    /// With several FILEs and --in-place or --check: how many files are rewritten at once
    /// (default: the number of CPUs; 1 for one at a time). Messages and --stats come in the
    /// order of the FILEs, once all are done; each file has its own --memory-limit.
    #[arg(long, short = 'j', value_name = "N", help_heading = "Output")]
    pub jobs: Option<std::num::NonZeroUsize>,
    /// Print statistics to stderr: elements matched per rule, bytes in/out, time.
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "text", help_heading = "Output")]
    pub stats: Option<StatsFormat>,
    /// Show a progress bar (default: on when stderr is a terminal and the input is a large file).
    #[arg(long, value_name = "WHEN", default_value = "auto", help_heading = "Output")]
    pub progress: When,

    /// The document's encoding (a WHATWG label); default: sniffed (BOM, <meta charset>, windows-1252).
    #[arg(long, value_name = "LABEL", help_heading = "Parsing")]
    pub encoding: Option<String>,
    /// Parse the input as a fragment in the context of this element (e.g. div, tbody, title).
    #[arg(long, value_name = "CONTEXT", value_parser = parse_context, help_heading = "Parsing")]
    pub fragment: Option<String>,
    /// Declare a namespace prefix for type selectors, as CSS's @namespace does: with
    /// `--namespace s=http://www.w3.org/2000/svg`, `s|rect` selects SVG rect elements. A prefix
    /// used without a declaration is an error (rules files declare theirs in `[namespaces]`).
    #[arg(long = "namespace", value_name = "PREFIX=URL", value_parser = parse_namespace, help_heading = "Parsing")]
    pub namespaces: Vec<(String, String)>,
    /// Most memory the rewriter may hold (e.g. 64M, 1G; default 256M, 0 for none; exit 4 when exceeded).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, help_heading = "Parsing")]
    pub memory_limit: Option<usize>,

    /// Print a shell completion script and exit.
    #[arg(long, value_name = "SHELL", exclusive = true)]
    pub completions: Option<Shell>,
}

/// The rewriting actions.
#[derive(Debug, Args)]
#[command(next_help_heading = "Actions (repeatable, applied in the order given)")]
pub struct ActionArgs {
    /// Set attribute NAME to VALUE on elements matching SEL.
    #[arg(long, num_args = 3, value_names = ["SEL", "NAME", "VALUE"])]
    pub set_attr: Vec<String>,
    /// Remove attribute NAME.
    #[arg(long, num_args = 2, value_names = ["SEL", "NAME"])]
    pub remove_attr: Vec<String>,
    /// Rename the element to TAG.
    #[arg(long, num_args = 2, value_names = ["SEL", "TAG"])]
    pub rename: Vec<String>,
    /// Remove the element and its content.
    #[arg(long, value_name = "SEL")]
    pub remove: Vec<String>,
    /// Remove the element's tags, keep its content.
    #[arg(long, value_name = "SEL")]
    pub unwrap: Vec<String>,
    /// Insert HTML before the element.
    #[arg(long, num_args = 2, value_names = ["SEL", "HTML"])]
    pub before: Vec<String>,
    /// Insert HTML after the element.
    #[arg(long, num_args = 2, value_names = ["SEL", "HTML"])]
    pub after: Vec<String>,
    /// Insert HTML at the start of the element's content.
    #[arg(long, num_args = 2, value_names = ["SEL", "HTML"])]
    pub prepend: Vec<String>,
    /// Insert HTML at the end of the element's content.
    #[arg(long, num_args = 2, value_names = ["SEL", "HTML"])]
    pub append: Vec<String>,
    /// Replace the element with HTML.
    #[arg(long, num_args = 2, value_names = ["SEL", "HTML"])]
    pub replace: Vec<String>,
    /// Replace the element's content with HTML.
    #[arg(long, num_args = 2, value_names = ["SEL", "HTML"])]
    pub set_inner: Vec<String>,
    /// Replace the element's content with plain TEXT (escaped).
    #[arg(long, num_args = 2, value_names = ["SEL", "TEXT"])]
    pub set_text: Vec<String>,
    /// Insert plain TEXT (escaped for where it lands) before the element.
    #[arg(long, num_args = 2, value_names = ["SEL", "TEXT"])]
    pub before_text: Vec<String>,
    /// Insert plain TEXT after the element.
    #[arg(long, num_args = 2, value_names = ["SEL", "TEXT"])]
    pub after_text: Vec<String>,
    /// Insert plain TEXT at the start of the element's content.
    #[arg(long, num_args = 2, value_names = ["SEL", "TEXT"])]
    pub prepend_text: Vec<String>,
    /// Insert plain TEXT at the end of the element's content.
    #[arg(long, num_args = 2, value_names = ["SEL", "TEXT"])]
    pub append_text: Vec<String>,
    /// Replace the element with plain TEXT.
    #[arg(long, num_args = 2, value_names = ["SEL", "TEXT"])]
    pub replace_text: Vec<String>,
}

/// The read-only modes (one at a time, without actions).
#[derive(Debug, Args)]
#[command(next_help_heading = "Read-only modes (print instead of rewriting)")]
#[group(multiple = false)]
pub struct ReadArgs {
    /// Print the outer HTML of each element matching SEL (nested matches too), one per line (-0: NUL-terminated).
    #[arg(long, value_name = "SEL")]
    pub select: Option<String>,
    /// Print the text of each outermost element matching SEL (a nested match's text is part of it), one per line (-0: NUL-terminated).
    #[arg(long, value_name = "SEL")]
    pub text_of: Option<String>,
    /// Print how many elements match SEL.
    #[arg(long, value_name = "SEL")]
    pub count: Option<String>,
    /// Print attribute NAME of each element matching SEL that has it, one per line (-0: NUL-terminated).
    #[arg(long, num_args = 2, value_names = ["SEL", "NAME"])]
    pub attr: Vec<String>,
}

/// `--stats` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per input.
    Json,
}

/// When to show the progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum When {
    /// On a terminal, for inputs of 16 MiB or more.
    Auto,
    /// For inputs of any size, stdin included (drawn only when stderr is a terminal).
    Always,
    /// Never.
    Never,
}

/// A read-only mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadMode {
    /// `--select SEL`.
    Select(String),
    /// `--text-of SEL`.
    TextOf(String),
    /// `--count SEL`.
    Count(String),
    /// `--attr SEL NAME`.
    Attr(String, String),
}

impl ReadMode {
    /// The selector.
    pub fn selector(&self) -> &str {
        match self {
            ReadMode::Select(s) | ReadMode::TextOf(s) | ReadMode::Count(s) | ReadMode::Attr(s, _) => s,
        }
    }
    /// The flag, for messages.
    pub fn flag(&self) -> &'static str {
        match self {
            ReadMode::Select(_) => "--select",
            ReadMode::TextOf(_) => "--text-of",
            ReadMode::Count(_) => "--count",
            ReadMode::Attr(..) => "--attr",
        }
    }
}

/// Everything the run needs, checked.
#[derive(Debug)]
pub struct Config {
    /// The parsed flags.
    pub cli: Cli,
    /// All rules (flags and rules files), in the order given.
    pub rules: RuleSet,
    /// The read-only mode, if any.
    pub read: Option<ReadMode>,
}

/// The action flags: (argument id, action name, number of values).
const ACTION_FLAGS: &[(&str, &str, usize)] = &[
    ("set_attr", "set-attr", 3),
    ("remove_attr", "remove-attr", 2),
    ("rename", "rename", 2),
    ("remove", "remove", 1),
    ("unwrap", "unwrap", 1),
    ("before", "before", 2),
    ("after", "after", 2),
    ("prepend", "prepend", 2),
    ("append", "append", 2),
    ("replace", "replace", 2),
    ("set_inner", "set-inner", 2),
    ("set_text", "set-text", 2),
    ("before_text", "before-text", 2),
    ("after_text", "after-text", 2),
    ("prepend_text", "prepend-text", 2),
    ("append_text", "append-text", 2),
    ("replace_text", "replace-text", 2),
];

/// Parses `args` (with the program name first).
///
/// # Errors
/// [`Failure::Help`] for `--help`/`--version`, [`Failure::Usage`] for bad
/// arguments, rules files that do not read or parse, bad selectors.
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Config, Failure> {
    let matches = Cli::command().try_get_matches_from(args).map_err(Failure::from_clap)?;
    let cli = Cli::from_arg_matches(&matches).map_err(Failure::from_clap)?;
    let read = read_mode(&cli)
        .map(|mode| {
            let resolve =
                |s: &String| htrewrite_cli::rules::declare_prefixes(s, &cli.namespaces).map_err(Failure::Usage);
            Ok::<_, Failure>(match mode {
                ReadMode::Select(s) => ReadMode::Select(resolve(&s)?),
                ReadMode::TextOf(s) => ReadMode::TextOf(resolve(&s)?),
                ReadMode::Count(s) => ReadMode::Count(resolve(&s)?),
                ReadMode::Attr(s, n) => ReadMode::Attr(resolve(&s)?, n),
            })
        })
        .transpose()?;
    let rules = ordered_rules(&matches, &cli)?;
    if read.is_some() && !rules.rules().is_empty() {
        return Err(Failure::Usage(format!(
            "{} is read-only and cannot be combined with actions or --rules",
            read.as_ref().map_or("", ReadMode::flag)
        )));
    }
    if read.is_some() && (cli.in_place || cli.check || cli.diff) {
        return Err(Failure::Usage("--in-place, --check and --diff do not apply to read-only modes".into()));
    }
    if cli.in_place && (cli.files.is_empty() || cli.files.iter().any(|f| f.as_os_str() == "-")) {
        return Err(Failure::Usage("--in-place needs FILE arguments (not stdin)".into()));
    }
    if let Some(mode) = &read
        && let Err(e) = htrewrite::Selectors::new([mode.selector()])
    {
        let reason = match &e {
            htrewrite::RewritingError::Selector { error, .. } => error.to_string(),
            other => other.to_string(),
        };
        return Err(Failure::Usage(format!("{}: invalid selector {:?}: {reason}", mode.flag(), mode.selector())));
    }
    Ok(Config { cli, rules, read })
}

fn read_mode(cli: &Cli) -> Option<ReadMode> {
    let r = &cli.read;
    if let Some(s) = &r.select {
        return Some(ReadMode::Select(s.clone()));
    }
    if let Some(s) = &r.text_of {
        return Some(ReadMode::TextOf(s.clone()));
    }
    if let Some(s) = &r.count {
        return Some(ReadMode::Count(s.clone()));
    }
    match r.attr.as_slice() {
        [sel, name] => Some(ReadMode::Attr(sel.clone(), name.clone())),
        _ => None,
    }
}

/// The rules of all action flags and rules files, in command-line order.
fn ordered_rules(matches: &ArgMatches, cli: &Cli) -> Result<RuleSet, Failure> {
    // (position on the command line, rules from there)
    let mut found: Vec<(usize, Vec<Rule>)> = Vec::new();
    for &(id, name, arity) in ACTION_FLAGS {
        let (Some(indices), Some(values)) = (matches.indices_of(id), matches.get_many::<String>(id)) else {
            continue;
        };
        let indices: Vec<usize> = indices.collect();
        let values: Vec<&String> = values.collect();
        for (at, group) in indices.chunks(arity).zip(values.chunks(arity)) {
            let flag = format!("--{name}");
            let (attr, value) = match (name, group) {
                ("set-attr", [_, n, v]) => (Some(n.as_str()), Some(v.as_str())),
                ("remove-attr", [_, n]) => (Some(n.as_str()), None),
                (_, [_, v]) => (None, Some(v.as_str())),
                _ => (None, None),
            };
            let action = Action::from_parts(name, attr, value).map_err(|m| Failure::Usage(format!("{flag}: {m}")))?;
            let selector = htrewrite_cli::rules::declare_prefixes(group[0], &cli.namespaces)
                .map_err(|m| Failure::Usage(format!("{flag}: {m}")))?;
            let origin = Origin::Flag { flag, index: at[0] };
            found.push((at[0], vec![Rule { selector, action, origin }]));
        }
    }
    if let Some(indices) = matches.indices_of("rules") {
        for (at, path) in indices.zip(&cli.rules) {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::Usage(format!("--rules {}: cannot read: {e}", path.display())))?;
            let set = RuleSet::from_toml_str(&text).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
            found.push((at, set.in_file(&path.display().to_string()).rules().to_vec()));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    RuleSet::new(found.into_iter().flat_map(|(_, r)| r).collect()).map_err(|e| Failure::Usage(e.to_string()))
}

/// A `--namespace` declaration: `PREFIX=URL`, the prefix an identifier.
fn parse_namespace(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((prefix, url))
            if prefix.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
        {
            Ok((prefix.to_owned(), url.to_owned()))
        }
        _ => Err("expected PREFIX=URL, e.g. s=http://www.w3.org/2000/svg".into()),
    }
}

/// A `--fragment` context: an element name (an ASCII letter, then no whitespace, `/`, `>` or NUL).
fn parse_context(s: &str) -> Result<String, String> {
    let ok = s.starts_with(|c: char| c.is_ascii_alphabetic())
        && !s.contains(|c: char| c.is_ascii_whitespace() || matches!(c, '/' | '>' | '\0'));
    if ok { Ok(s.to_string()) } else { Err(format!("{s:?} is not an element name (e.g. div, tbody, title)")) }
}

/// The memory limit when `--memory-limit` is not given: 256 MiB. Real pages
/// hold well under 1 MiB (the 4 MB WHATWG source under 300 KiB); the limit
/// stops a hostile input (100 MB of nested `<div>`s with an action, a 500 MB
/// attribute being edited) with exit 4 and the exact output before it,
/// instead of the kernel's out-of-memory kill and a silently cut output.
pub const DEFAULT_MEMORY_LIMIT: usize = 256 << 20;

impl Cli {
    /// The memory limit in force: `--memory-limit`, [`DEFAULT_MEMORY_LIMIT`]
    /// without it, none (`usize::MAX`) for `0`.
    pub fn memory_limit(&self) -> usize {
        match self.memory_limit {
            None => DEFAULT_MEMORY_LIMIT,
            Some(0) => usize::MAX,
            Some(limit) => limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str]) -> Result<Config, Failure> {
        parse(std::iter::once("htrewrite").chain(args.iter().copied()).map(Into::into))
    }

    #[test]
    fn actions_keep_command_line_order_across_flags() {
        let c = config(&["--remove", "b", "--set-attr", "p", "x", "1", "--unwrap", "i", "--remove", "s"]).unwrap();
        let names: Vec<_> = c.rules.rules().iter().map(|r| (r.action.name(), r.selector.as_str())).collect();
        assert_eq!(names, [("remove", "b"), ("set-attr", "p"), ("unwrap", "i"), ("remove", "s")]);
    }

    #[test]
    fn bad_selector_names_flag_and_selector() {
        let Err(Failure::Usage(m)) = config(&["--remove", "p", "--set-attr", "a[", "x", "1"]) else { panic!() };
        assert!(m.starts_with("--set-attr: invalid selector \"a[\""), "{m}");
        let Err(Failure::Usage(m)) = config(&["--count", "p >"]) else { panic!() };
        assert!(m.starts_with("--count: invalid selector \"p >\""), "{m}");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2KiB"), Ok(2048));
        assert!(parse_size("x").is_err());
        assert!(parse_size("3T").is_err());
    }
}
