//! `--in-place` temporary files are removed when a signal ends the run (SIGTERM, SIGINT, SIGHUP),
//! as `sed -i` does: the file being rewritten is left as it was and no `.htrewrite-*.tmp` stays
//! behind. The process then exits with 128 + the signal's number, as a shell reports a run ended
//! by that signal.
//!
//! A thread waits for the signals ([`signal_hook`]; started with the first temporary file), so no
//! work happens inside a signal handler; the temporary files are listed while they exist.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The temporary files that exist now.
static TEMPS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static WATCH: Once = Once::new();

/// A temporary file listed for removal on a signal while this guard lives; it leaves the list
/// when dropped (after the file was renamed over its target or removed).
pub struct Listed(PathBuf);

impl Listed {
    /// Makes a temporary file with `make` and lists its path (`path_of`), holding the list
    /// meanwhile, so that a signal cannot come between the file's creation and its listing;
    /// starts the thread that waits for signals first (once).
    ///
    /// # Errors
    /// The error of `make`.
    pub fn create<T>(
        make: impl FnOnce() -> std::io::Result<T>,
        path_of: impl Fn(&T) -> &Path,
    ) -> std::io::Result<(T, Listed)> {
        WATCH.call_once(watch);
        let mut list = lock();
        let made = make()?;
        let path = path_of(&made).to_owned();
        list.push(path.clone());
        Ok((made, Listed(path)))
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        lock().retain(|p| *p != self.0);
    }
}

/// The list, even if a thread panicked while holding it (a list of paths stays valid).
fn lock() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts the thread that, on the first of the signals, removes the listed files and exits.
/// If the signals cannot be caught, their default action (ending the process) stays, as before.
fn watch() {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) else { return };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            for path in lock().drain(..) {
                let _ = std::fs::remove_file(path);
            }
            std::process::exit(128 + signal);
        }
    });
}
