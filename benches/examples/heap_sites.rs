//! The heap a rewriter holds at its peak, by allocation site: one run of a
//! bench workload (after an unmeasured warm-up run) under dhat's heap
//! profiler, the ten largest sites at the peak printed with the first
//! htrewrite frames of their stacks. What the memory bench's figures are made of.
//!
//! ```text
//! cargo run --release -p htrewrite-benches --example heap_sites -- FILE CHUNK WORKLOAD [full]
//! ```
//!
//! `WORKLOAD` is one of the bench's names (`passthrough`, `cdn`, `rewrite`,
//! `count10`, `text`, `select1000`); `full` runs the full pipeline. The
//! profile is also left in the temporary directory as `dhat-heap.json`
//! (dhat's viewer reads it).
//!
//! # Errors
//! Exits with a message on a wrong argument (clap's usage error) or an
//! unreadable file.

use std::path::PathBuf;

use clap::Parser;
use htrewrite_benches::parse_byte_count;
use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// The heap a rewriter holds at its peak, by allocation site (dhat).
#[derive(Debug, Parser)]
#[command(name = "heap_sites")]
struct Args {
    /// The page.
    file: PathBuf,
    /// Chunk size the page is fed in (`65536`, `64K`, `1M`).
    #[arg(value_parser = parse_byte_count)]
    chunk: usize,
    /// The workload: passthrough, cdn, rewrite, count10, text or select1000.
    workload: RewriteWorkload,
    /// `full`: the full pipeline (the tree built with no handlers).
    #[arg(value_parser = ["full"])]
    full: Option<String>,
}

fn main() -> Result<(), String> {
    let Args { file, chunk, workload, full } = Args::parse();
    let engine = if full.is_some() { RewriteEngine::HtrewriteFull } else { RewriteEngine::Htrewrite };
    let doc = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let prepared = Prepared::new();
    std::hint::black_box(engine.run(workload, &doc, chunk, &prepared));
    let path = std::env::temp_dir().join("dhat-heap.json");
    let profiler = dhat::Profiler::builder().file_name(&path).build();
    std::hint::black_box(engine.run(workload, &doc, chunk, &prepared));
    drop(profiler);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let frames = json["ftbl"].as_array().ok_or("dhat: no frame table")?;
    let mut sites: Vec<&serde_json::Value> = json["pps"].as_array().ok_or("dhat: no sites")?.iter().collect();
    sites.sort_by_key(|s| std::cmp::Reverse(s["gb"].as_u64().unwrap_or(0)));
    for site in sites.iter().take(10) {
        let ours: Vec<&str> = site["fs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| frames.get(f.as_u64()? as usize)?.as_str())
            .filter(|f| f.contains("htrewrite") && !f.contains("dhat"))
            .filter_map(|f| f.split_once(": ").map(|(_, rest)| rest.split(" (").next().unwrap_or(rest)))
            .take(3)
            .collect();
        println!("{:>8} bytes at the peak | {}", site["gb"].as_u64().unwrap_or(0), ours.join(" <- "));
    }
    Ok(())
}
