// Runs worker.mjs the way a Workers-like runtime does, in Node: `.wasm`
// imports become a compiled WebAssembly.Module (a module load hook), the
// module's fetch handler gets a Request and an env whose ORIGIN serves FILE.
// Needs Node ≥ 20.6 (module.register).
//   node crates/js/examples/worker-node.mjs examples/sample.html
import { register } from 'node:module';
import { readFile } from 'node:fs/promises';

register('data:text/javascript,' + encodeURIComponent(`
  export async function load(url, context, next) {
    if (!url.endsWith('.wasm')) return next(url, context);
    return {
      format: 'module',
      shortCircuit: true,
      source: 'import { readFileSync } from "node:fs";' +
        'export default new WebAssembly.Module(readFileSync(new URL(' + JSON.stringify(url) + ')));',
    };
  }`));

const path = process.argv[2];
if (!path) throw new Error('usage: worker-node.mjs FILE.html');
const body = await readFile(path);
const env = { ORIGIN: { fetch: async () => new Response(body, { headers: { 'content-type': 'text/html' } }) } };
const { default: worker } = await import('./worker.mjs');
const response = await worker.fetch(new Request('https://example.com/'), env);
process.stdout.write(await response.text());
