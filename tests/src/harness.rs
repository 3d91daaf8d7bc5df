//! Trial plumbing: panics turned into failure messages, and a watchdog for hangs.
//!
//! A tokenizer under development may panic or loop. [`catch`] runs one tokenization and turns a
//! panic into an `Err` with its message and location, so a trial can say *which chunking*
//! panicked. [`Watchdog`] ends the whole run with the trial's name when one trial takes too long,
//! instead of hanging `cargo test` silently.

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex, Once};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Installs a panic hook that records the message and location of a panic for [`catch`] instead
/// of printing it (libtest-mimic reports the failure itself). Idempotent.
pub fn install_panic_hook() {
    HOOK.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
                (*s).to_owned()
            } else if let Some(s) = info.payload().downcast_ref::<String>() {
                s.clone()
            } else {
                "(non-string panic payload)".to_owned()
            };
            let at = info.location().map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()));
            let text = format!("panicked{}: {msg}", at.unwrap_or_default());
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
        }));
    });
}

/// Runs `f`; a panic becomes `Err("panicked at file:line:col: message")`.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    LAST_PANIC.with(|p| *p.borrow_mut() = None);
    panic::catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| "panicked".to_owned()))
}

/// Ends the process (exit code 101) with a message naming the trial when a trial runs longer than
/// its limit.
#[derive(Clone)]
pub struct Watchdog {
    running: Arc<Mutex<HashMap<ThreadId, (String, Instant)>>>,
    limit: Duration,
}

impl Watchdog {
    /// Starts the watchdog thread.
    pub fn start(limit: Duration) -> Watchdog {
        let w = Watchdog { running: Arc::new(Mutex::new(HashMap::new())), limit };
        let watched = w.clone();
        thread::spawn(move || {
            loop {
                thread::sleep(Duration::from_millis(500));
                let running = watched.running.lock().unwrap_or_else(|e| e.into_inner());
                for (name, since) in running.values() {
                    if since.elapsed() > watched.limit {
                        eprintln!(
                            "\nwatchdog: trial `{name}` has run for more than {:?}: the tokenizer probably \
                             loops; stopping the run",
                            watched.limit
                        );
                        std::process::exit(101);
                    }
                }
            }
        });
        w
    }

    /// Runs `f` as the trial `name`, watched.
    pub fn watch<T>(&self, name: &str, f: impl FnOnce() -> T) -> T {
        let id = thread::current().id();
        self.running.lock().unwrap_or_else(|e| e.into_inner()).insert(id, (name.to_owned(), Instant::now()));
        let _done = Done(self, id);
        f()
    }
}

/// Removes a trial from the watch list when it ends, also by panic.
struct Done<'a>(&'a Watchdog, ThreadId);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.running.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.1);
    }
}
