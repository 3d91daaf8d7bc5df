//! A bounded HTTP/1.1 load client for loopback tests: a fixed number of GET
//! requests over a fixed number of keep-alive connections, with a time limit.
//!
//! ```text
//! cargo run --release -p htrewrite-examples --example load -- URL [REQUESTS] [CONNECTIONS] [SECONDS]
//! ```
//!
//! Prints one line: requests completed (of those asked; fewer when the time
//! limit cut the run short), errors, non-2xx, bytes, seconds, requests/s, MB/s.
//! Exits 1 if any request failed or was not 2xx.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(url) = args.first().cloned() else {
        eprintln!("usage: load URL [REQUESTS] [CONNECTIONS] [SECONDS]");
        return ExitCode::FAILURE;
    };
    let arg = |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (requests, connections, seconds) = (arg(1, 2000), arg(2, 8), arg(3, 30));
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let ok = runtime.block_on(async move {
        let uri: http::Uri = url.parse().expect("URL");
        let client = Client::builder(TokioExecutor::new()).pool_max_idle_per_host(connections as usize).build_http();
        let next = Arc::new(AtomicU64::new(0));
        let completed = Arc::new(AtomicU64::new(0));
        let (errors, bad, bytes) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let start = Instant::now();
        let deadline = start + Duration::from_secs(seconds);
        let mut tasks = Vec::new();
        for _ in 0..connections {
            let (client, uri, next, completed) = (client.clone(), uri.clone(), next.clone(), completed.clone());
            let (errors, bad, bytes) = (errors.clone(), bad.clone(), bytes.clone());
            tasks.push(tokio::spawn(async move {
                while next.fetch_add(1, Ordering::Relaxed) < requests && Instant::now() < deadline {
                    let req = http::Request::get(uri.clone()).body(Empty::<Bytes>::new()).unwrap();
                    match client.request(req).await {
                        Ok(res) => {
                            if !res.status().is_success() {
                                bad.fetch_add(1, Ordering::Relaxed);
                            }
                            match res.into_body().collect().await {
                                Ok(b) => bytes.fetch_add(b.to_bytes().len() as u64, Ordering::Relaxed),
                                Err(_) => errors.fetch_add(1, Ordering::Relaxed),
                            };
                        }
                        Err(_) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    completed.fetch_add(1, Ordering::Relaxed);
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let secs = start.elapsed().as_secs_f64();
        let done = completed.load(Ordering::Relaxed);
        let (errors, bad, bytes) = (errors.load(Ordering::Relaxed), bad.load(Ordering::Relaxed), bytes.load(Ordering::Relaxed));
        println!(
            "requests {done} of {requests}, errors {errors}, non-2xx {bad}, bytes {bytes}, seconds {secs:.2}, {:.0} requests/s, {:.1} MB/s",
            done as f64 / secs,
            bytes as f64 / secs / 1e6
        );
        errors == 0 && bad == 0
    });
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
