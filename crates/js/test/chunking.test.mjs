// Chunking independence: the same output (and the same handler
// observations) whatever chunks the body's ReadableStream delivers: every
// byte apart and every single split point for small documents, seeded random
// splits for large ones (the seed is in the failure message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpus, prng, randomCuts, read, rewrite, rewriteStream } from './helpers.mjs';

const html = { html: true };

/** Rewrites that observe and edit; text is handled per text node, as chunking-independent handlers must. */
function configure(log) {
  return (rw) => {
    let text = '';
    return rw
      .on('a[href]', { element(el) { el.setAttribute('href', el.getAttribute('href').replace('http:', 'https:')); } })
      .on('head', { element(el) { el.append('<script src="/x.js"></script>', html); } })
      .on('p', {
        element(el) {
          log.push(`p ${[...el.attributes].join(';')}`);
          el.onEndTag((end) => { end.before('¶'); });
        },
      })
      .on('img', { element(el) { el.setAttribute('loading', 'lazy'); } })
      .on('b', { element(el) { el.removeAndKeepContent(); } })
      .on('s', { element(el) { el.remove(); } })
      .on('title', {
        text(t) {
          text += t.text;
          if (t.lastInTextNode) { log.push(`title ${text}`); text = ''; }
        },
      })
      .on('li', { comments(c) { c.text = c.text.toUpperCase(); } })
      .onDocument({
        doctype(d) { log.push(`doctype ${d.name}`); },
        end(e) { e.append('<!--end-->', html); },
      });
  };
}

const small = [
  '<!DOCTYPE html><html><head><title>T &amp; t</title></head><body><p class=a>x<b>y</b><s>z</s><img src=i></p></body></html>',
  '<p>a<div>b<p>c<a href=http://e.example/q?a=1&amp;b=2>d</a></div><ul><li>1<!--c--><li>2<!--d--></ul>',
  '<table><tr><td>1<p>x</table><svg><title>s</title><p>after</svg><title>t</title>',
  '<script>if (a<b) { x = "</p>" }</script><p>é ü 漢字 <!-- é --> &eacute;&#233;</p>\r\n<textarea><p></textarea>',
];

async function check(doc, cuts, label) {
  const expectLog = [];
  const expected = await rewrite(doc, configure(expectLog));
  const log = [];
  assert.equal(await rewrite(doc, configure(log), cuts), expected, label);
  assert.deepEqual(log, expectLog, label);
  const streamLog = [];
  assert.equal(rewriteStream(doc, configure(streamLog), cuts), expected, `${label} (StreamRewriter)`);
  assert.deepEqual(streamLog, expectLog, `${label} (StreamRewriter)`);
}

test('small documents: every byte a chunk, and every single split point', async () => {
  for (const [i, doc] of small.entries()) {
    const length = new TextEncoder().encode(doc).length;
    await check(doc, Array.from({ length }, (_, j) => j), `document ${i} byte by byte`);
    for (let at = 1; at < length; at++) await check(doc, [at], `document ${i} split at ${at}`);
  }
});

test('corpus pages: seeded random splits', async () => {
  const { pages } = corpus();
  const seed = Number(process.env.HTREWRITE_SEED ?? 18);
  const random = prng(seed);
  // A spread of pages (every seventh, the largest included), 3 random chunkings each.
  const picked = pages.filter((_, i) => i % 7 === 0);
  for (const page of picked) {
    const bytes = read(page.path);
    const doc = new TextDecoder().decode(bytes);
    for (let k = 0; k < 3; k++) {
      const n = 1 + Math.floor(random() * 200);
      await check(doc, randomCuts(bytes.length, n, random), `${page.name}, ${n} random cuts (seed ${seed}, round ${k})`);
    }
  }
});
