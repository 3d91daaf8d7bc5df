// The corpus ($HTREWRITE_CORPUS, else tests/data/corpus) through transform():
// byte for byte with no handlers and with handlers that read and change
// nothing; the CDN injection (a <script> appended to <head>) adds exactly it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLRewriter, bytesOf, corpus, prng, randomCuts, read, responseOf } from './helpers.mjs';

const { dir, pages } = corpus();
const INJECTED = '<script src="/injected.js"></script>';

function equalBytes(actual, expected, label) {
  if (actual.length === expected.length && actual.every((b, i) => b === expected[i])) return;
  const at = actual.findIndex((b, i) => b !== expected[i]);
  assert.fail(`${label}: output differs from input at byte ${at} (${actual.length} vs ${expected.length} bytes)`);
}

test(`round trip: ${pages.length} pages of ${dir} with no handlers`, async () => {
  for (const page of pages) {
    const bytes = read(page.path);
    equalBytes(await bytesOf(new HTMLRewriter().transform(responseOf(bytes, [bytes.length >> 1]))), bytes, page.name);
  }
});

test('round trip with handlers that read everything and change nothing', async () => {
  const random = prng(7);
  let seen = 0;
  const observe = () =>
    new HTMLRewriter()
      .on('*', {
        element(el) {
          seen += el.tagName.length + [...el.attributes].length;
          el.onEndTag((end) => { seen += end.name.length; });
        },
        comments(c) { seen += c.text.length; },
      })
      .onDocument({ text(t) { seen += t.text.length; }, doctype(d) { seen += (d.name ?? '').length; } });
  for (const page of pages) {
    const bytes = read(page.path);
    equalBytes(await bytesOf(observe().transform(responseOf(bytes, randomCuts(bytes.length, 16, random)))), bytes, page.name);
  }
  assert.ok(seen > 0);
});

test('CDN injection: a <script> appended to <head>, nothing else changed', async () => {
  const rw = new HTMLRewriter().on('head', { element(el) { el.append(INJECTED, { html: true }); } });
  const decoder = new TextDecoder();
  let injected = 0;
  for (const page of pages) {
    const bytes = read(page.path);
    const out = decoder.decode(await bytesOf(rw.transform(responseOf(bytes))));
    const at = out.indexOf(INJECTED);
    assert.notEqual(at, -1, page.name);
    assert.equal(out.indexOf(INJECTED, at + 1), -1, `${page.name}: injected once`);
    assert.equal(out.slice(0, at) + out.slice(at + INJECTED.length), decoder.decode(bytes), page.name);
    injected++;
  }
  assert.equal(injected, pages.length);
  // Where it lands: the end of the head, before </head> or where the head ends implied.
  for (const [page, expected] of [
    ['<html><head><title>t</title></head><body>b', `<html><head><title>t</title>${INJECTED}</head><body>b`],
    ['<title>t</title><p>b', `<title>t</title>${INJECTED}<p>b`],
  ]) {
    assert.equal(decoder.decode(await bytesOf(rw.transform(responseOf(page)))), expected);
  }
});
