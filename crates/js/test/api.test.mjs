// Every method of the HTMLRewriter API (Workers' names), through transform().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLRewriter, rewrite, rewriteStream } from './helpers.mjs';

const html = { html: true };

test('Element: tagName, namespaceURI, attributes, getAttribute, hasAttribute', async () => {
  const seen = [];
  await rewrite('<div ID=a class="x y" data-v=&amp;>t</div><svg><path d="M0"/></svg>', (rw) =>
    rw.on('div, path', {
      element(el) {
        seen.push([el.tagName, el.namespaceURI, [...el.attributes], el.getAttribute('id'), el.getAttribute('nope'),
          el.hasAttribute('CLASS'), el.hasAttribute('nope'), el.removed]);
      },
    }));
  assert.deepEqual(seen, [
    ['div', 'http://www.w3.org/1999/xhtml', [['id', 'a'], ['class', 'x y'], ['data-v', '&']], 'a', null, true, false, false],
    ['path', 'http://www.w3.org/2000/svg', [['d', 'M0']], null, null, false, false, false],
  ]);
});

test('Element.attributes is an iterator of [name, value]', async () => {
  let it;
  await rewrite('<p a=1 b=2>', (rw) => rw.on('p', { element(el) { it = el.attributes; assert.deepEqual(it.next().value, ['a', '1']); } }));
  assert.equal(typeof it.next, 'function');
  assert.equal(typeof it[Symbol.iterator], 'function');
});

test('Element: setAttribute, removeAttribute, tagName set; reads see the edits', async () => {
  const reads = [];
  const out = await rewrite('<p class=a title="t">x</p><b>y</b>', (rw) =>
    rw.on('p', {
      element(el) {
        assert.equal(el.setAttribute('class', 'b c'), el);
        el.setAttribute('data-new', '"q"');
        assert.equal(el.removeAttribute('title'), el);
        reads.push(el.getAttribute('class'), el.hasAttribute('title'), [...el.attributes].map(([n]) => n).join());
        el.tagName = 'section';
        reads.push(el.tagName);
      },
    }).on('b', { element(el) { el.tagName = 'strong'; } }));
  assert.equal(out, '<section class="b c" data-new="&quot;q&quot;">x</section><strong>y</strong>');
  assert.deepEqual(reads, ['b c', false, 'class,data-new', 'section']);
});

test('Element: before, after, prepend, append, with and without {html: true}', async () => {
  const out = await rewrite('<p>x</p>', (rw) =>
    rw.on('p', {
      element(el) {
        el.before('<i>b</i>', html).after('<i>a</i>', html).prepend('<i>p</i>', html).append('<i>e</i>', html);
        el.before('1<2').after('3>2').prepend('&').append('"');
      },
    }));
  assert.equal(out, '<i>b</i>1&lt;2<p>&amp;<i>p</i>x<i>e</i>"</p>3&gt;2<i>a</i>');
});

test('Element: setInnerContent, replace, remove, removeAndKeepContent, removed', async () => {
  const removed = [];
  const out = await rewrite('<a>1</a><b>2</b><i>3</i><u>4<s>5</s></u>', (rw) =>
    rw
      .on('a', { element(el) { el.setInnerContent('<em>n</em>', html); removed.push(el.removed); } })
      .on('b', { element(el) { el.replace('<hr>', html); removed.push(el.removed); } })
      .on('i', { element(el) { el.remove(); removed.push(el.removed); } })
      .on('u', { element(el) { el.removeAndKeepContent(); removed.push(el.removed); } }));
  assert.equal(out, '<a><em>n</em></a><hr>4<s>5</s>');
  assert.deepEqual(removed, [false, true, true, false]);
});

test('Element.onEndTag: EndTag name get/set, before, after, remove', async () => {
  const names = [];
  const out = await rewrite('<div><span>x</span></div><p>y</p><b>z</b>', (rw) =>
    rw
      .on('span', {
        element(el) {
          el.tagName = 'em';
          el.onEndTag((end) => {
            names.push(end.name);
            assert.equal(end.before('<i>in</i>', html), end);
            end.after('<i>out</i>', html);
          });
        },
      })
      .on('p', { element(el) { el.onEndTag((end) => { end.name = 'P'; }); } })
      .on('b', { element(el) { el.onEndTag((end) => { assert.equal(end.remove(), end); }); } }));
  assert.equal(out, '<div><em>x<i>in</i></em><i>out</i></div><p>y</P><b>z');
  assert.deepEqual(names, ['em']);
});

test('Text: text, lastInTextNode, removed, before, after, replace, remove', async () => {
  const seen = [];
  const out = await rewrite('<p>ab</p><b>cd</b><i>ef</i><u>gh</u>', (rw) =>
    rw
      .on('p', {
        text(t) {
          if (seen.length === 0) assert.equal(t.before('[', html), t);
          if (t.lastInTextNode) assert.equal(t.after(']', html), t);
          seen.push([t.text, t.lastInTextNode, t.removed]);
        },
      })
      .on('b', { text(t) { if (t.text) { t.replace('<em>C</em>', html); seen.push(t.removed); } } })
      .on('i', { text(t) { t.remove(); } })
      .on('u', { text(t) { if (t.text) t.replace('<em>'); } }), [4]);
  assert.equal(out, '<p>[ab]</p><b><em>C</em></b><i></i><u>&lt;em&gt;</u>');
  // The chunks of a text node: their text adds up, the last says so (and may be empty).
  const p = seen.slice(0, -1);
  assert.equal(p.map(([t]) => t).join(''), 'ab');
  assert.deepEqual(p.map(([, last]) => last), p.map((_, i) => i === p.length - 1));
  assert.ok(p.every(([, , removed]) => removed === false));
  assert.equal(seen.at(-1), true);
});

test('Comment: text get/set, removed, before, after, replace, remove', async () => {
  const seen = [];
  const out = await rewrite('<p><!--a--><!--b--><!--c--><!--d--></p>', (rw) =>
    rw.on('p', {
      comments(c) {
        seen.push(c.text);
        if (c.text === 'a') c.text = 'A';
        if (c.text === 'b') assert.equal(c.before('<i>', html).after('>'), c);
        if (c.text === 'c') { c.replace('<hr>', html); seen.push(c.removed); }
        if (c.text === 'd') { c.remove(); seen.push(c.removed); }
      },
    }));
  assert.equal(out, '<p><!--A--><i><!--b-->&gt;<hr></p>');
  assert.deepEqual(seen, ['a', 'b', 'c', true, 'd', true]);
});

test('onDocument: doctype, comments, text, end', async () => {
  const seen = [];
  const out = await rewrite('<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd"><!--c-->t', (rw) =>
    rw.onDocument({
      doctype(d) { seen.push(d.name, d.publicId, d.systemId); },
      comments(c) { c.text = 'C'; },
      text(t) { if (t.text) t.replace('T'); },
      end(end) { assert.equal(end.append('<!--end-->', html), end); end.append('<&>'); },
    }));
  assert.equal(out, '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd"><!--C-->T<!--end-->&lt;&amp;&gt;');
  assert.deepEqual(seen, ['html', '-//W3C//DTD HTML 4.01//EN', 'http://www.w3.org/TR/html4/strict.dtd']);
  const missing = [];
  await rewrite('<!doctype>', (rw) => rw.onDocument({ doctype(d) { missing.push(d.name, d.publicId, d.systemId); } }));
  assert.deepEqual(missing, [null, null, null]);
});

test('handlers as class instances: methods called with this bound to the instance', async () => {
  class Counter {
    constructor() { this.elements = 0; this.texts = 0; this.seenComments = 0; }
    element() { this.elements++; }
    text(t) { if (t.text) this.texts++; }
    comments() { this.seenComments++; }
  }
  class Doc {
    constructor(label) { this.label = label; }
    end(end) { end.append(this.label); }
  }
  const counter = new Counter();
  const out = await rewrite('<p>a<!--x--></p><p>b</p>', (rw) => rw.on('p', counter).onDocument(new Doc('!')));
  assert.equal(out, '<p>a<!--x--></p><p>b</p>!');
  assert.deepEqual([counter.elements, counter.texts, counter.seenComments], [2, 2, 1]);
});

test('handlers run in registration order; on and onDocument return this', async () => {
  const order = [];
  const rw = new HTMLRewriter();
  assert.equal(rw.on('p', { element() { order.push(1); } }), rw);
  assert.equal(rw.on('p.x', { element() { order.push(2); } }), rw);
  assert.equal(rw.onDocument({ end() { order.push(3); } }), rw);
  await rw.transform(new Response('<p class=x>')).text();
  assert.deepEqual(order, [1, 2, 3]);
});

test('one HTMLRewriter transforms several responses', async () => {
  const rw = new HTMLRewriter().on('p', { element(el) { el.setAttribute('n', '1'); } });
  const [a, b] = await Promise.all([rw.transform(new Response('<p>a')).text(), rw.transform(new Response('<p>b')).text()]);
  assert.deepEqual([a, b], ['<p n="1">a', '<p n="1">b']);
});

test('transform keeps status and headers, drops Content-Length, handles a null body', async () => {
  const res = new HTMLRewriter()
    .on('p', { element(el) { el.append('!'); } })
    .transform(new Response('<p>x', { status: 201, statusText: 'Made', headers: { 'content-type': 'text/html', 'content-length': '4', 'x-a': 'b' } }));
  assert.equal(res.status, 201);
  assert.equal(res.statusText, 'Made');
  assert.equal(res.headers.get('x-a'), 'b');
  assert.equal(res.headers.get('content-length'), null);
  assert.equal(await res.text(), '<p>x!');
  const empty = new HTMLRewriter().transform(new Response(null, { status: 204 }));
  assert.equal(empty.status, 204);
  assert.equal(empty.body, null);
});

test('transform reads the charset of Content-Type', async () => {
  const latin1 = new Uint8Array([0x3c, 0x70, 0x3e, 0xe9]); // <p>é in windows-1252
  const res = new HTMLRewriter()
    .on('p', { text(t) { if (t.text) t.after('è'); } })
    .transform(new Response(latin1, { headers: { 'content-type': 'text/html; charset=ISO-8859-1' } }));
  assert.deepEqual([...new Uint8Array(await res.arrayBuffer())], [0x3c, 0x70, 0x3e, 0xe9, 0xe8]);
});

test('StreamRewriter: write(Uint8Array | string) and end() with an output callback', () => {
  const chunks = [];
  const rw = new StreamRewriter((c) => chunks.push(c));
  rw.on('b', { element(el) { el.setAttribute('x', '1'); } }).onDocument({ end(e) { e.append('.'); } });
  rw.write(new TextEncoder().encode('<a><b'));
  rw.write('>c</b>');
  rw.end();
  assert.ok(chunks.every((c) => c instanceof Uint8Array && c.length > 0));
  assert.equal(new TextDecoder().decode(concatAll(chunks)), '<a><b x="1">c</b>.');
  assert.throws(() => rw.write('more'), /ended/);
  assert.throws(() => rw.on('p', {}), TypeError);
  assert.equal(rewriteStream('<p>é', (r) => r.on('p', { element(el) { el.append('ü'); } }), [4]), '<p>éü');
});

test('StreamRewriter: encoding option', () => {
  const chunks = [];
  const rw = new StreamRewriter((c) => chunks.push(c), { encoding: 'windows-1252' });
  rw.on('p', { element(el) { el.append('é'); } });
  rw.write(new Uint8Array([0x3c, 0x70, 0x3e]));
  rw.end();
  assert.deepEqual([...concatAll(chunks)], [0x3c, 0x70, 0x3e, 0xe9]);
  assert.throws(() => new StreamRewriter(() => {}, { encoding: 'nope' }), TypeError);
});

import { StreamRewriter, concat as concatAll } from './helpers.mjs';
