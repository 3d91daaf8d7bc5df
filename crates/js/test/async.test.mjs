// Async element handlers (issue 19): a handler that returns a Promise defers
// the edits it makes after its `await`s into slots the core fills when the
// Promise settles; output after the element waits, parsing goes on.
//
// - `deferred equals immediate`: seeded random documents, selectors and edit
//   lists; the edits made after an await give what the same edits made
//   synchronously give, through transform() and StreamRewriter, whole and
//   at random chunkings.
// - `resolution order`: the handlers' Promises resolved in every order (all
//   permutations of four, seeded random orders of twelve): one output.
// - `chunking`: small documents split at every byte, Promises resolved late.
// - streaming, back-pressure, rejection, unsupported edits, stale elements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLRewriter, StreamRewriter, concat, prng, randomCuts, rewrite, responseOf } from './helpers.mjs';

const decoder = new TextDecoder();
const seed = Number(process.env.HTREWRITE_SEED ?? 0x5eed19);
const tick = () => new Promise((r) => setTimeout(r, 0));

/** A Promise with its `resolve` and `reject` outside. */
function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Applies edit list `edits` (`[method, ...args]`) to `el`. */
function applyEdits(el, edits) {
  for (const [method, ...args] of edits) el[method](...args);
}

/** StreamRewriter over `html` cut at `cuts`, awaiting what write/end return; as a string. */
async function streamed(html, configure, cuts = []) {
  const bytes = new TextEncoder().encode(html);
  const out = [];
  const rw = configure(new StreamRewriter((c) => out.push(c.slice())));
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    await rw.write(bytes.subarray(at, c));
    at = c;
  }
  await rw.end();
  return decoder.decode(concat(out));
}

test('an async handler edits after its await: transform() and StreamRewriter', async () => {
  const handlers = {
    async element(el) {
      const name = el.getAttribute('src');
      await tick();
      el.replace(`<section>fragment ${name}</section>`, { html: true });
    },
  };
  const page = '<p>a<esi-include src=/f></esi-include>b</p>';
  const expected = '<p>a<section>fragment /f</section>b</p>';
  assert.equal(await rewrite(page, (rw) => rw.on('esi-include', handlers)), expected);
  assert.equal(await streamed(page, (rw) => rw.on('esi-include', handlers)), expected);
});

// Documents, selectors and edits for the random comparison.
const PIECES = ['<p>', '</p>', '<div class=x>', '</div>', 'text', ' & < ', '<b>', '</b>', '<img src=a>', '<ul><li>1<li>2</ul>',
  '<table><tr><td>c</table>', '<script>s()</script>', '<title>t</title>', '<br>', '<!--c-->', '<span id=y>', '</span>'];
const SELECTORS = ['p', 'div', 'b', 'img', 'li', 'td', 'span', 'script', 'title', 'br', 'body', 'p, li'];
const CONTENTS = ['x', '<i>h</i>', '1 < 2 & "3"', '', 'é', '</p>'];
const METHODS = ['before', 'after', 'prepend', 'append', 'setInnerContent', 'replace', 'remove'];

function randomCase(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const doc = Array.from({ length: 1 + Math.floor(random() * 10) }, () => pick(PIECES)).join('');
  const edits = Array.from({ length: Math.floor(random() * 5) }, () => {
    const method = pick(METHODS);
    if (method === 'remove') return ['remove'];
    return random() < 0.5 ? [method, pick(CONTENTS), { html: true }] : [method, pick(CONTENTS)];
  });
  return { doc, selector: pick(SELECTORS), edits };
}

test('deferred equals immediate: random documents and edits', async () => {
  const random = prng(seed);
  for (let i = 0; i < 150; i++) {
    const { doc, selector, edits } = randomCase(random);
    const cuts = randomCuts(doc.length, 3, random);
    const now = await rewrite(doc, (rw) => rw.on(selector, { element(el) { applyEdits(el, edits); } }));
    const later = { async element(el) { await tick(); applyEdits(el, edits); } };
    const what = `seed ${seed}, case ${i}: ${JSON.stringify({ doc, selector, edits, cuts })}`;
    assert.equal(await rewrite(doc, (rw) => rw.on(selector, later)), now, what);
    assert.equal(await rewrite(doc, (rw) => rw.on(selector, later), cuts), now, what);
    assert.equal(await streamed(doc, (rw) => rw.on(selector, later), cuts), now, what);
  }
});

test('edits before the await apply at once, edits after it land later, both kept', async () => {
  const out = await rewrite('<p class=a>x</p><p>y</p>', (rw) =>
    rw.on('p', {
      async element(el) {
        el.setAttribute('data-seen', '1');
        el.before('[');
        await tick();
        el.before(']');
        el.append('!');
        el.after('>');
      },
    }));
  assert.equal(out, '[]<p class=a data-seen="1">x!</p>&gt;[]<p data-seen="1">y!</p>&gt;');
});

/** All orders of `0..n`. */
function permutations(n) {
  if (n === 0) return [[]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]));
}

/** The output of `page` when the handlers' Promises (one per `li`) resolve in `order`. */
async function resolvedIn(page, order) {
  const waits = [];
  const out = [];
  const rw = new StreamRewriter((c) => out.push(c.slice())).on('li', {
    async element(el) {
      const d = deferred();
      waits.push(d);
      const n = await d.promise;
      el.prepend(`#${n} `);
      el.after(`<!--${n}-->`, { html: true });
    },
  });
  rw.write(page);
  const ended = rw.end();
  assert.ok(ended instanceof Promise, 'end() waits for the handlers');
  for (const i of order) {
    waits[i].resolve(i);
    await tick();
  }
  await ended;
  return decoder.decode(concat(out));
}

test('resolution order: every order of four, random orders of twelve, one output', async () => {
  for (const n of [4, 12]) {
    const page = `<ol>${Array.from({ length: n }, (_, i) => `<li>${i}`).join('')}</ol>`;
    const expected = `<ol>${Array.from({ length: n }, (_, i) => `<li>#${i} ${i}<!--${i}-->`).join('')}</ol>`;
    const random = prng(seed + n);
    const orders = n <= 4 ? permutations(n) : Array.from({ length: 12 }, () => {
      const o = [...Array(n).keys()];
      for (let i = o.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [o[i], o[j]] = [o[j], o[i]];
      }
      return o;
    });
    for (const order of orders) assert.equal(await resolvedIn(page, order), expected, `order ${order}`);
  }
});

test('chunking: split at every byte, the same output', async () => {
  const page = '<div><p class=x>a<b>b</b></p>c<p>d</div>';
  const configure = (rw) =>
    rw.on('p', {
      async element(el) {
        const cls = el.getAttribute('class');
        await tick();
        if (cls) el.setInnerContent('<em>new</em>', { html: true });
        else el.remove();
        el.before('^');
      },
    });
  const expected = '<div>^<p class=x><em>new</em></p>c^</div>';
  for (let at = 0; at <= page.length; at++) {
    assert.equal(await rewrite(page, configure, [at]), expected, `split at ${at}`);
    assert.equal(await streamed(page, configure, [at]), expected, `split at ${at}`);
  }
  const every = [...Array(page.length).keys()];
  assert.equal(await rewrite(page, configure, every), expected, 'every byte apart');
});

test('output before the waiting element leaves at once, the rest after its Promise', async () => {
  const out = [];
  const d = deferred();
  const rw = new StreamRewriter((c) => out.push(decoder.decode(c))).on('aside', {
    async element(el) {
      await d.promise;
      el.setInnerContent('ad');
    },
  });
  rw.write('<p>first</p><aside>slot</aside><p>after</p>');
  assert.equal(out.join(''), '<p>first</p>'); // the slot before the element is the first
  const ended = rw.end();
  d.resolve();
  await ended;
  assert.equal(out.join(''), '<p>first</p><aside>ad</aside><p>after</p>');
});

/** A StreamRewriter whose `#slow` element waits for `d` before `edit(el)`; its output goes to `out`. */
function waitingOnSlow(edit) {
  const d = deferred();
  const out = [];
  const rw = new StreamRewriter((c) => out.push(c.slice())).on('#slow', {
    async element(el) {
      await d.promise;
      edit(el);
    },
  });
  return { rw, out, d };
}

test('back-pressure: past the held-output bound write() returns a Promise, nothing is lost', async () => {
  const { rw, out, d } = waitingOnSlow((el) => el.append('filled'));
  const head = '<div id=slow></div>';
  const body = '<p>' + 'y'.repeat(3 << 20) + '</p>';
  rw.write(head);
  const written = rw.write(body);
  assert.ok(written instanceof Promise, 'a 3 MiB write behind a waiting slot is not taken at once');
  d.resolve();
  await written;
  await rw.end();
  assert.equal(decoder.decode(concat(out)), '<div id=slow>filled</div>' + body);
});

test('writes made while one waits (not awaited) follow it in order', async () => {
  const { rw, out, d } = waitingOnSlow((el) => el.prepend('!'));
  rw.write('<div id=slow>');
  const big = new TextEncoder().encode('<p>' + 'z'.repeat(2 << 20));
  const first = rw.write(big);
  assert.ok(first instanceof Promise);
  const second = rw.write('<b>tail</b>');
  assert.ok(second instanceof Promise, 'queued behind the first');
  big.fill(0x41); // the caller reuses its buffer: what was not taken was copied
  const ended = rw.end();
  d.resolve();
  await Promise.all([first, second, ended]);
  assert.equal(decoder.decode(concat(out)), '<div id=slow>!<p>' + 'z'.repeat(2 << 20) + '<b>tail</b>');
});

test('a rejected Promise fails the stream with what it gave', async () => {
  const boom = new Error('upstream down');
  const res = new HTMLRewriter().on('p', { async element() { await tick(); throw boom; } }).transform(responseOf('<p>a</p><p>b'));
  await assert.rejects(res.text(), (e) => e === boom);
  const rw = new StreamRewriter(() => {}).on('p', { async element() { await tick(); throw boom; } });
  rw.write('<p>');
  await assert.rejects(rw.end(), (e) => e === boom);
});

test('start-tag edits after the await throw a TypeError the handler may catch; reads still work', async () => {
  const seen = [];
  const out = await rewrite('<a href=/x ID=k>l</a>', (rw) =>
    rw.on('a', {
      async element(el) {
        el.setAttribute('rel', 'next');
        await tick();
        for (const f of [() => el.setAttribute('a', '1'), () => el.removeAttribute('href'), () => (el.tagName = 'b'),
          () => el.removeAndKeepContent(), () => el.onEndTag(() => {})]) {
          try {
            f();
            seen.push('no error');
          } catch (e) {
            seen.push(e instanceof TypeError);
          }
        }
        seen.push(el.tagName, el.getAttribute('HREF'), el.getAttribute('id'), el.hasAttribute('rel'), el.removed);
        el.remove();
        seen.push(el.removed);
      },
    }));
  assert.deepEqual(seen, [true, true, true, true, true, 'a', '/x', 'k', true, false, true]);
  assert.equal(out, '');
});

test('after its Promise settles the element is no longer valid', async () => {
  let kept;
  await rewrite('<p>x', (rw) => rw.on('p', { async element(el) { kept = el; await tick(); } }));
  assert.throws(() => kept.append('late'), /no longer valid/);
});

test('only element handlers may be async', async () => {
  const res = new HTMLRewriter().on('p', { async text() {} }).transform(new Response('<p>x'));
  await assert.rejects(res.text(), /only element handlers may be async/);
});
