// The README's "try" commands: examples/node.mjs (Node, Deno) and
// examples/worker-node.mjs (worker.mjs as a Workers-like runtime runs it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sample = fileURLToPath(new URL('../../../examples/sample.html', import.meta.url));
const injected = '<script src="/injected.js"></script>';

for (const example of ['node.mjs', 'worker-node.mjs']) {
  test(`examples/${example} injects the script into <head>, nothing else`, () => {
    const script = fileURLToPath(new URL(`../examples/${example}`, import.meta.url));
    const out = execFileSync(process.execPath, [script, sample], { encoding: 'utf8' });
    const page = readFileSync(sample, 'utf8');
    assert.ok(!/href="http:/.test(page));
    assert.equal(out.replace(injected, ''), page);
    assert.match(out, new RegExp(`${injected}</head>`));
  });
}
