// Throughput of htrewrite's package against html-rewriter-wasm (lol-html on
// wasm, npm) in the same Node process, on the corpus ($HTREWRITE_CORPUS, else
// tests/data/corpus): pass-through, CDN injection (a <script> appended to
// <head>) and the ten counting selectors of benches/ (`count10`), each page
// written in 64 KiB chunks through each package's low-level streaming API.
// Prints a Markdown table (MB/s, the median of ROUNDS rounds over the whole
// corpus) and both .wasm sizes. Run from crates/js after `./build.sh` and
// `npm install`: node bench/compare.mjs
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { corpus, read } from '../test/helpers.mjs';
import { StreamRewriter } from '../index.js';

const require = createRequire(import.meta.url);
const lol = require('html-rewriter-wasm');

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CHUNK = 64 * 1024;
const INJECTED = '<script src="/injected.js"></script>';
// benches/src/pipeline.rs `TEN`.
const TEN = ['a', 'div', 'p', 'span', 'img', 'li', 'script', 'meta', 'link[rel]', 'ul > li'];

const { dir, pages } = corpus();
const docs = pages.map((p) => read(p.path));
const total = docs.reduce((n, d) => n + d.length, 0);

const workloads = {
  'pass-through': () => {},
  'injection (head append)': (rw) => rw.on('head', { element(el) { el.append(INJECTED, { html: true }); } }),
  'ten selectors (count10)': (rw, counts) => {
    for (const s of TEN) rw.on(s, { element() { counts.n++; } });
  },
};

async function runLol(setup, doc, counts) {
  let out = 0;
  const rw = new lol.HTMLRewriter((chunk) => { out += chunk.length; });
  setup(rw, counts);
  for (let at = 0; at < doc.length; at += CHUNK) await rw.write(doc.subarray(at, at + CHUNK));
  await rw.end();
  rw.free();
  return out;
}

function runOurs(setup, doc, counts) {
  let out = 0;
  const rw = new StreamRewriter((chunk) => { out += chunk.length; });
  setup(rw, counts);
  for (let at = 0; at < doc.length; at += CHUNK) rw.write(doc.subarray(at, at + CHUNK));
  rw.end();
  return out;
}

const engines = { htrewrite: runOurs, 'html-rewriter-wasm': runLol };
const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

const rows = [];
for (const [name, setup] of Object.entries(workloads)) {
  const row = { name };
  for (const [engine, run] of Object.entries(engines)) {
    const speeds = [];
    let outBytes = 0;
    const counts = { n: 0 };
    // One round first to let the engine tier the wasm code up (not counted).
    for (let r = -1; r < ROUNDS; r++) {
      counts.n = 0;
      outBytes = 0;
      const t0 = performance.now();
      for (const doc of docs) outBytes += await run(setup, doc, counts);
      if (r >= 0) speeds.push(total / 1e6 / ((performance.now() - t0) / 1000));
    }
    row[engine] = { speed: median(speeds), outBytes, matched: counts.n };
  }
  rows.push(row);
}

const fmt = (n) => n.toLocaleString('en-US');
const wasmSize = (path) => {
  const bytes = readFileSync(path);
  return `${fmt(bytes.length)} raw, ${fmt(gzipSync(bytes, { level: 9 }).length)} gzip -9`;
};
console.log(`corpus: ${dir}, ${pages.length} pages, ${fmt(total)} bytes; 64 KiB chunks; median of ${ROUNDS} rounds after one warm-up round; node ${process.version}\n`);
console.log('| workload | htrewrite MB/s | html-rewriter-wasm MB/s | ratio | output bytes (htrewrite / lol) | elements matched (htrewrite / lol) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const a = r.htrewrite, b = r['html-rewriter-wasm'];
  console.log(`| ${r.name} | ${a.speed.toFixed(1)} | ${b.speed.toFixed(1)} | ${(a.speed / b.speed).toFixed(2)}× | ${fmt(a.outBytes)} / ${fmt(b.outBytes)} | ${fmt(a.matched)} / ${fmt(b.matched)} |`);
}
console.log(`\n.wasm sizes: htrewrite ${wasmSize(new URL('../pkg/htrewrite_js_bg.wasm', import.meta.url))}; ` +
  `html-rewriter-wasm ${require('html-rewriter-wasm/package.json').version} ${wasmSize(require.resolve('html-rewriter-wasm/dist/html_rewriter_bg.wasm'))}`);
