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
use clap::Parser;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// A bounded HTTP/1.1 load client: REQUESTS GETs of URL over CONNECTIONS keep-alive connections,
/// stopped after SECONDS; prints one line, exits 1 if any request failed or was not 2xx.
#[derive(Debug, Parser)]
#[command(name = "load")]
struct Args {
    /// The page to GET (`http://HOST:PORT/PATH`).
    #[arg(value_name = "URL")]
    url: http::Uri,
    /// Requests in all.
    #[arg(value_name = "REQUESTS", default_value_t = 2000)]
    requests: u64,
    /// Keep-alive connections the requests share.
    #[arg(value_name = "CONNECTIONS", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..))]
    connections: u64,
    /// The time limit: requests not started by then are not made.
    #[arg(value_name = "SECONDS", default_value_t = 30)]
    seconds: u64,
}

fn main() -> ExitCode {
    let Args { url: uri, requests, connections, seconds } = Args::parse();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let ok = runtime.block_on(async move {
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
