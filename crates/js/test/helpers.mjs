// Shared by the node --test suites: module loading, rewriting through
// transform() with any chunking, a seeded PRNG, the corpus pages.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { init, HTMLRewriter, StreamRewriter } from '../index.js';

await init();
export { HTMLRewriter, StreamRewriter };

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** A `Response` whose body stream delivers `bytes` cut at `cuts` (sorted offsets). */
export function responseOf(bytes, cuts = [], init = {}) {
  if (typeof bytes === 'string') bytes = encoder.encode(bytes);
  const pieces = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    if (c > at) pieces.push(bytes.subarray(at, c));
    at = Math.max(at, c);
  }
  const body = new ReadableStream({
    pull(controller) {
      if (pieces.length === 0) controller.close();
      else controller.enqueue(pieces.shift());
    },
  });
  return new Response(body, init);
}

/** The bytes of `response`'s body. */
export async function bytesOf(response) {
  return new Uint8Array(await response.arrayBuffer());
}

/** `html` rewritten by `configure(new HTMLRewriter())` through transform(), cut at `cuts`; as a string. */
export async function rewrite(html, configure, cuts = []) {
  const rw = configure(new HTMLRewriter());
  return decoder.decode(await bytesOf(rw.transform(responseOf(html, cuts))));
}

/** The same through StreamRewriter, one write per piece. */
export function rewriteStream(html, configure, cuts = []) {
  const bytes = typeof html === 'string' ? encoder.encode(html) : html;
  const out = [];
  const rw = configure(new StreamRewriter((chunk) => out.push(chunk.slice())));
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    rw.write(bytes.subarray(at, c));
    at = c;
  }
  rw.end();
  return decoder.decode(concat(out));
}

export function concat(chunks) {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

/** mulberry32: a small seeded PRNG, so random chunkings can be replayed from the printed seed. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` sorted random cut points in `0..length`. */
export function randomCuts(length, n, random) {
  const cuts = Array.from({ length: n }, () => Math.floor(random() * length));
  return cuts.sort((a, b) => a - b);
}

const here = fileURLToPath(new URL('.', import.meta.url));
const vendored = join(here, '../../../tests/data/corpus');

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** The corpus pages: every file under $HTREWRITE_CORPUS, else the vendored pages of tests/data/corpus. */
export function corpus() {
  const dir = process.env.HTREWRITE_CORPUS || vendored;
  const files = walk(dir, []).filter((p) => !/(^|\/)(MANIFEST\.tsv|README\.md|LICENSES\.md)$/.test(p));
  if (files.length === 0) throw new Error(`no pages under ${dir}`);
  return { dir, pages: files.map((p) => ({ name: relative(dir, p), path: p })) };
}

export const read = (path) => new Uint8Array(readFileSync(path));
