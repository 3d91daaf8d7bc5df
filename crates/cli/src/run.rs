//! The run: each input streamed through a rewriter in 64 KiB chunks, to
//! stdout, to a temporary file renamed over the input (`--in-place`), or
//! only compared (`--check`) or diffed (`--diff`).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use htrewrite::{HandlerKind, OutputSink, Rewriter, Settings};
use htrewrite_cli::rules::MatchCounts;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::args::{Cli, Config, StatsFormat, When};
use crate::failure::Failure;
use crate::read;

/// Bytes read at a time.
pub const CHUNK: usize = 64 * 1024;

/// Files this large get a progress bar on a terminal (`--progress auto`).
const PROGRESS_FROM: u64 = 16 << 20;

/// One input: a file or stdin.
pub struct Input {
    /// `-` for stdin, else the path as given.
    pub name: String,
    /// The file, when not stdin.
    pub path: Option<PathBuf>,
    /// Where bytes come from.
    pub reader: Box<dyn Read>,
    /// The size, when known.
    pub len: Option<u64>,
    /// Whether a progress bar may be shown (not when several files are done at once).
    pub progress: bool,
}

impl Input {
    fn open(path: Option<&Path>) -> Result<Input, Failure> {
        match path {
            None => {
                Ok(Input { name: "-".into(), path: None, reader: Box::new(io::stdin()), len: None, progress: true })
            }
            Some(p) if p.as_os_str() == "-" => Input::open(None),
            Some(p) => {
                let file = File::open(p).map_err(|e| Failure::Io(format!("cannot read {}: {e}", p.display())))?;
                let meta = file.metadata().map_err(|e| Failure::Io(format!("cannot read {}: {e}", p.display())))?;
                if meta.is_dir() {
                    return Err(Failure::Io(format!("cannot read {}: is a directory", p.display())));
                }
                Ok(Input {
                    name: p.display().to_string(),
                    path: Some(p.to_path_buf()),
                    reader: Box::new(file),
                    len: Some(meta.len()),
                    progress: true,
                })
            }
        }
    }

    /// Reads the next chunk into `buf`; 0 at the end.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, Failure> {
        loop {
            match self.reader.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Failure::Io(format!("cannot read {}: {e}", self.name))),
            }
        }
    }
}

/// What one input's run measured, for `--stats`.
pub struct Stats {
    /// The input's name.
    pub input: String,
    /// Bytes read.
    pub bytes_in: u64,
    /// Bytes written (the rewritten document; for read-only modes, what was printed).
    pub bytes_out: u64,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// (label, selector, where given, elements matched, of those left
    /// unchanged for want of a start tag) per rule or mode.
    pub matched: Vec<(String, String, String, u64, u64)>,
}

impl Stats {
    fn print(&self, format: StatsFormat) {
        match format {
            StatsFormat::Text => {
                eprintln!(
                    "htrewrite: {}: {} bytes in, {} bytes out, {:.3} s",
                    self.input,
                    self.bytes_in,
                    self.bytes_out,
                    self.elapsed.as_secs_f64()
                );
                for (label, selector, origin, n, skipped) in &self.matched {
                    let skipped = if *skipped > 0 { format!(", {skipped} without a start tag") } else { String::new() };
                    eprintln!("htrewrite:   {label} {selector:?} ({origin}): {n} matched{skipped}");
                }
            }
            StatsFormat::Json => {
                let rules: Vec<_> = self
                    .matched
                    .iter()
                    .map(|(label, selector, origin, n, skipped)| {
                        serde_json::json!({"action": label, "selector": selector, "origin": origin, "matched": n,
                            "without_start_tag": skipped})
                    })
                    .collect();
                let json = serde_json::json!({
                    "input": self.input,
                    "bytes_in": self.bytes_in,
                    "bytes_out": self.bytes_out,
                    "seconds": self.elapsed.as_secs_f64(),
                    "rules": rules,
                });
                eprintln!("{json}");
            }
        }
    }
}

/// Applies the options every mode shares: encoding, fragment, memory limit.
pub fn options<'h, K: HandlerKind>(settings: Settings<'h, K>, cli: &Cli) -> Result<Settings<'h, K>, Failure> {
    let settings = match &cli.encoding {
        Some(label) => settings.encoding(label).map_err(|_| {
            Failure::Usage(format!(
                "--encoding: unknown encoding label {label:?} (use a WHATWG label: utf-8, latin1, shift_jis, …)"
            ))
        })?,
        None => settings.sniff_encoding(None, "windows-1252").map_err(|e| Failure::Usage(e.to_string()))?,
    };
    let settings = match &cli.fragment {
        Some(context) => settings.fragment(context),
        None => settings,
    };
    Ok(settings.memory_limit(cli.memory_limit()))
}

/// A progress bar for `input`, when wanted.
pub fn progress(cli: &Cli, input: &Input) -> Option<ProgressBar> {
    let show = input.progress
        && match cli.progress {
            When::Never => false,
            When::Always => true,
            When::Auto => io::stderr().is_terminal() && input.len.is_some_and(|l| l >= PROGRESS_FROM),
        };
    if !show {
        return None;
    }
    let bar = match input.len {
        Some(len) => ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{msg} {spinner} {bytes} {bytes_per_sec}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    Some(bar.with_message(input.name.clone()))
}

/// Runs the configuration; the exit code on success (0, or 1 when `--check` found changes).
/// With several inputs, one that cannot be read or rewritten is reported (on stderr, naming
/// it) and the others are still done; the exit code is then the worst one (3 or 4).
///
/// # Errors
/// A [`Failure`] with its exit code: usage errors, the output gone, or the failure of the
/// only input.
pub fn run(config: Config) -> Result<u8, Failure> {
    let Config { cli, rules, read } = config;
    if let Some(shell) = cli.completions {
        let mut cmd = <Cli as clap::CommandFactory>::command();
        clap_complete::generate(shell, &mut cmd, "htrewrite", &mut io::stdout());
        return Ok(0);
    }
    let paths: Vec<Option<&Path>> =
        if cli.files.is_empty() { vec![None] } else { cli.files.iter().map(|p| Some(p.as_path())).collect() };
    let many = paths.len() > 1;
    // Files that write nothing to stdout (-i, --check) can be rewritten at once.
    let jobs = match cli.jobs {
        _ if !many || read.is_some() || cli.diff || !(cli.in_place || cli.check) => 1,
        Some(n) => n.get(),
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
    .min(paths.len());
    let one = |path: Option<&Path>| one_input(&cli, &rules, read.as_ref(), path, many, jobs == 1);
    let mut changed_any = false;
    let mut worst = 0u8;
    let mut report = |path: Option<&Path>, done: Done| -> Result<(), Failure> {
        let done = done.map(|(changed, stats)| {
            if changed && cli.check {
                eprintln!("htrewrite: {}: would change", stats.input);
            }
            changed_any |= changed;
            if let Some(format) = cli.stats {
                stats.print(format);
            }
        });
        if let (Err(failure), Some(StatsFormat::Json)) = (&done, cli.stats)
            && let Some((code, message)) = failure.code_and_message()
        {
            // One JSON object per input, failed ones too (the message also goes to stderr as text).
            let name = path.map_or_else(|| "-".to_owned(), |p| p.display().to_string());
            eprintln!("{}", serde_json::json!({"input": name, "error": message, "exit": code}));
        }
        match done {
            Ok(()) => Ok(()),
            Err(failure) if many && failure.is_per_input() => {
                worst = worst.max(failure.report_code());
                Ok(())
            }
            Err(failure) => Err(failure),
        }
    };
    if jobs == 1 {
        for path in paths {
            report(path, one(path))?;
        }
    } else {
        // A pool of `jobs` threads takes the files in order; the results are reported in the
        // order of the files once all are done.
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<std::sync::Mutex<Option<Done>>> = paths.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&path) = paths.get(i) else { break };
                        let done = one(path);
                        *results[i].lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(done);
                    }
                });
            }
        });
        for (path, result) in paths.iter().zip(results) {
            let done = result.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
            report(*path, done.unwrap_or_else(|| Err(Failure::Rewrite("internal error: a file was not done".into()))))?;
        }
    }
    Ok(worst.max(u8::from(cli.check && changed_any)))
}

/// What one input gave: whether it changed, and its stats; or why it failed.
type Done = Result<(bool, Stats), Failure>;

/// Rewrites (or reads) one input: whether it changed, and its stats. `progress`: whether a
/// progress bar may be shown (not when files are done at once).
fn one_input(
    cli: &Cli,
    rules: &htrewrite_cli::rules::RuleSet,
    read: Option<&crate::args::ReadMode>,
    path: Option<&Path>,
    many: bool,
    progress: bool,
) -> Done {
    if cli.in_place
        && let Some(p) = path
        && std::fs::metadata(p).is_ok_and(|m| !m.is_file())
    {
        // As sed -i: a FIFO or device has no content to replace (and opening a FIFO waits).
        return Err(Failure::Io(format!("cannot rewrite {} in place: not a regular file", p.display())));
    }
    let mut input = Input::open(path)?;
    input.progress = progress;
    match read {
        Some(mode) => Ok((false, read::run(cli, mode, &mut input, many)?)),
        None => rewrite(cli, rules, &mut input),
    }
}

/// Compares output with input as both stream (for `--check` and `--in-place`).
#[derive(Default)]
struct Compare {
    /// Input not yet matched by output.
    pending: VecDeque<u8>,
    changed: bool,
}

impl Compare {
    fn input(&mut self, chunk: &[u8]) {
        if !self.changed {
            self.pending.extend(chunk);
        }
    }
    fn output(&mut self, chunk: &[u8]) {
        if self.changed {
            return;
        }
        if self.pending.len() < chunk.len() || !self.pending.drain(..chunk.len()).eq(chunk.iter().copied()) {
            self.changed = true;
            self.pending = VecDeque::new();
        }
    }
}

/// Where the rewritten document goes.
struct Out {
    /// Stdout or the temporary file.
    writer: Option<Box<dyn Write>>,
    compare: Option<Compare>,
    /// A copy of the output, for `--diff`.
    copy: Option<Vec<u8>>,
    bytes: u64,
}

impl OutputSink for Out {
    fn write(&mut self, chunk: &[u8]) -> io::Result<()> {
        self.bytes += chunk.len() as u64;
        if let Some(c) = &mut self.compare {
            c.output(chunk);
        }
        if let Some(copy) = &mut self.copy {
            copy.extend_from_slice(chunk);
        }
        match &mut self.writer {
            Some(w) => w.write_all(chunk),
            None => Ok(()),
        }
    }
}

/// Rewrites one input; whether it changed, and the stats.
fn rewrite(cli: &Cli, rules: &htrewrite_cli::rules::RuleSet, input: &mut Input) -> Result<(bool, Stats), Failure> {
    let start = Instant::now();
    let counts = MatchCounts::new(rules.rules().len());
    let settings = options(rules.settings_counting(&counts), cli)?;
    // --in-place: a temporary file beside the target, so the final rename is atomic; listed
    // for removal if a signal ends the run (declared first: dropped after the file).
    let mut _listed = None;
    let mut temp = match (&input.path, cli.in_place && !cli.check) {
        (Some(path), true) => {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let make = || tempfile::Builder::new().prefix(".htrewrite-").suffix(".tmp").tempfile_in(dir);
            let (file, listed) = crate::cleanup::Listed::create(make, |f| f.path())
                .map_err(|e| Failure::Io(format!("cannot create a temporary file in {}: {e}", dir.display())))?;
            _listed = Some(listed);
            Some(file)
        }
        _ => None,
    };
    // --check writes nothing; --diff prints the diff instead of the document.
    let writer: Option<Box<dyn Write>> = match &temp {
        _ if cli.check => None,
        Some(t) => {
            let f = t.as_file().try_clone().map_err(|e| Failure::Io(format!("cannot write {}: {e}", input.name)))?;
            Some(Box::new(io::BufWriter::with_capacity(CHUNK, f)))
        }
        None if cli.diff => None,
        None => {
            Failure::stdout_open()?;
            Some(Box::new(io::BufWriter::with_capacity(CHUNK, io::stdout())))
        }
    };
    let name = input.name.clone();
    let out_name = if temp.is_some() { name.as_str() } else { "stdout" };
    let sink = Out {
        writer,
        compare: (cli.check || cli.in_place).then(Compare::default),
        copy: cli.diff.then(Vec::new),
        bytes: 0,
    };
    let mut original = cli.diff.then(Vec::new);
    let mut rw = Rewriter::new(settings, sink).map_err(|e| Failure::Usage(e.to_string()))?;
    let bar = progress(cli, input);
    let mut buf = vec![0; CHUNK];
    let mut bytes_in = 0u64;
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes_in += n as u64;
        let chunk = &buf[..n];
        if let Some(o) = &mut original {
            o.extend_from_slice(chunk);
        }
        if let Some(c) = &mut rw.sink_mut().compare {
            c.input(chunk);
        }
        rw.write(chunk).map_err(|e| Failure::rewriting(e, &name, out_name))?;
        let sink = rw.sink_mut();
        if let Some(w) = &mut sink.writer {
            w.flush().map_err(|e| Failure::output(&e, out_name))?;
        }
        if let Some(b) = &bar {
            b.inc(n as u64);
        }
        // --check alone: the first difference settles it.
        if cli.check && !cli.diff && sink.compare.as_ref().is_some_and(|c| c.changed) {
            break;
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut sink = rw.end().map_err(|e| Failure::rewriting(e, &name, out_name))?;
    if let Some(w) = &mut sink.writer {
        w.flush().map_err(|e| Failure::output(&e, out_name))?;
    }
    drop(sink.writer.take());
    let changed = match (&sink.compare, &original, &sink.copy) {
        (_, Some(old), Some(new)) => old != new,
        (Some(c), _, _) => c.changed || !c.pending.is_empty(),
        _ => false,
    };
    if let (Some(old), Some(new)) = (&original, &sink.copy) {
        print_diff(&input.name, old, new)?;
    }
    if let (Some(t), Some(path)) = (temp.take(), &input.path)
        && changed
    {
        persist(t, path)?;
    }
    let matched: Vec<_> = rules
        .rules()
        .iter()
        .enumerate()
        .map(|(i, r)| {
            (r.action.name().to_string(), r.selector.clone(), r.origin.to_string(), counts.get(i), counts.skipped(i))
        })
        .collect();
    // An edit that could not be made is said, with or without --stats.
    for (label, selector, origin, _, skipped) in &matched {
        if *skipped > 0 {
            let (n, them) = if *skipped == 1 { ("element has", "it") } else { ("elements have", "them") };
            eprintln!(
                "htrewrite: warning: {}: {label} {selector:?} ({origin}): {skipped} matched {n} no start tag in the \
                 input (the parser implied {them}): left unchanged",
                input.name
            );
        }
    }
    let stats = Stats { input: input.name.clone(), bytes_in, bytes_out: sink.bytes, elapsed: start.elapsed(), matched };
    Ok((changed, stats))
}

/// Gives the temporary file the original's permissions and renames it over the original.
fn persist(temp: tempfile::NamedTempFile, path: &Path) -> Result<(), Failure> {
    let fail = |e: io::Error| Failure::Io(format!("cannot replace {}: {e}", path.display()));
    let perms = std::fs::metadata(path).map_err(fail)?.permissions();
    temp.as_file().sync_all().map_err(fail)?;
    std::fs::set_permissions(temp.path(), perms).map_err(fail)?;
    temp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// How long `--diff` looks for the smallest diff of one file before it settles for a larger,
/// still exact one (the line diff is O(N·D): quadratic when every line changed).
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// Prints a unified diff of `old` and `new` to stdout, line by line, with the lines' exact
/// bytes (non-UTF-8 bytes as they are, so the patch applies to the file).
fn print_diff(name: &str, old: &[u8], new: &[u8]) -> Result<(), Failure> {
    if old == new {
        return Ok(());
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .deadline(std::time::Instant::now() + DIFF_DEADLINE)
        .diff_lines(old, new);
    Failure::stdout_open()?;
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let mut unified = diff.unified_diff();
    unified.context_radius(3);
    // Hunk by hunk: `UnifiedDiff::to_writer` formats hunks as text (lossy for non-UTF-8 bytes),
    // `UnifiedDiffHunk::to_writer` writes each line's bytes.
    let write = |w: &mut io::BufWriter<io::StdoutLock<'_>>| -> io::Result<()> {
        writeln!(w, "--- a/{name}\n+++ b/{name}")?;
        for hunk in unified.iter_hunks() {
            hunk.to_writer(&mut *w)?;
        }
        w.flush()
    };
    write(&mut stdout).map_err(|e| Failure::output(&e, "stdout"))
}
