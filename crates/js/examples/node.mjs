// Node (≥ 18) and Deno: rewrite an HTML file through HTMLRewriter.transform()
// and print it: a <script> appended to <head>, http: links made https:.
//   node crates/js/examples/node.mjs examples/sample.html
//   deno run --allow-read crates/js/examples/node.mjs examples/sample.html
import { readFile } from 'node:fs/promises';
import { init, HTMLRewriter } from '../index.js';

await init();
const path = process.argv[2];
if (!path) throw new Error('usage: node.mjs FILE.html');
const page = new Response(await readFile(path), { headers: { 'content-type': 'text/html; charset=utf-8' } });
const rewritten = new HTMLRewriter()
  .on('head', { element(el) { el.append('<script src="/injected.js"></script>', { html: true }); } })
  .on('a[href^="http:"]', { element(el) { el.setAttribute('href', el.getAttribute('href').replace('http:', 'https:')); } })
  .transform(page);
process.stdout.write(await rewritten.text());
