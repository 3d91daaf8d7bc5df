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
//! Exits with a message on a wrong argument or an unreadable file.

use htrewrite_benches::pipeline::{Prepared, RewriteEngine, RewriteWorkload};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: heap_sites FILE CHUNK WORKLOAD [full]";
    let [file, chunk, workload, rest @ ..] = &args[..] else { return Err(usage.into()) };
    let chunk: usize = chunk.parse().map_err(|e| format!("CHUNK: {e}"))?;
    let workload = RewriteWorkload::ALL
        .into_iter()
        .find(|w| w.name() == workload)
        .ok_or_else(|| format!("unknown workload {workload}"))?;
    let engine =
        if rest.first().is_some_and(|a| a == "full") { RewriteEngine::HtrewriteFull } else { RewriteEngine::Htrewrite };
    let doc = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
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
