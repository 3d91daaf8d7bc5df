// A Workers-style module (export default { fetch }): the origin's HTML with a
// <script> appended to <head>, rewritten as it streams. Runtimes of this kind
// import a .wasm file as a compiled WebAssembly.Module (wrangler: a
// CompiledWasm rule), which initSync takes; `env.ORIGIN` is a service binding
// to the origin (else the global fetch). Try it in Node: worker-node.mjs.
import wasm from '../pkg/htrewrite_js_bg.wasm';
import { initSync, HTMLRewriter } from '../index.js';

initSync(wasm);

const rewriter = new HTMLRewriter().on('head', {
  element(el) {
    el.append('<script src="/injected.js"></script>', { html: true });
  },
});

export default {
  async fetch(request, env) {
    const response = await (env.ORIGIN ?? globalThis).fetch(request);
    const type = response.headers.get('content-type') ?? '';
    return type.startsWith('text/html') ? rewriter.transform(response) : response;
  },
};
