// Errors: bad selectors fail at .on; a handler that throws fails the stream
// with what it threw; refused edits throw at the call; objects kept past
// their handler call throw; nothing is dropped silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HTMLRewriter, StreamRewriter, responseOf, rewrite } from './helpers.mjs';

test('a bad selector throws a TypeError naming it when .on is called', () => {
  for (const selector of ['p[', 'a >', '', '::before', 'p:hover']) {
    assert.throws(() => new HTMLRewriter().on(selector, { element() {} }), (e) => {
      assert.ok(e instanceof TypeError, `${selector}: ${e}`);
      assert.ok(e.message.includes(JSON.stringify(selector)), e.message);
      return true;
    });
  }
  assert.throws(() => new StreamRewriter(() => {}).on('div[x=', {}), TypeError);
});

test('handlers must be functions, given in an object', () => {
  assert.throws(() => new HTMLRewriter().on('p', { element: 1 }), TypeError);
  assert.throws(() => new HTMLRewriter().on('p', null), TypeError);
  assert.throws(() => new HTMLRewriter().onDocument({ end: 'x' }), TypeError);
  assert.throws(() => new StreamRewriter('not a function'), TypeError);
});

class Boom extends Error {}

test('a handler that throws errors the transformed body with that error', async () => {
  const boom = new Boom('element');
  const res = new HTMLRewriter().on('b', { element() { throw boom; } }).transform(responseOf('<a>1</a><b>2</b>', [3]));
  await assert.rejects(res.text(), (e) => e === boom);
  for (const [name, configure] of [
    ['text', (rw) => rw.on('b', { text() { throw new Boom('text'); } })],
    ['comments', (rw) => rw.on('b', { comments() { throw new Boom('comments'); } })],
    ['doctype', (rw) => rw.onDocument({ doctype() { throw new Boom('doctype'); } })],
    ['doc comments', (rw) => rw.onDocument({ comments() { throw new Boom('comments'); } })],
    ['doc text', (rw) => rw.onDocument({ text() { throw new Boom('text'); } })],
    ['end', (rw) => rw.onDocument({ end() { throw new Boom('end'); } })],
    ['end tag', (rw) => rw.on('b', { element(el) { el.onEndTag(() => { throw new Boom('end tag'); }); } })],
  ]) {
    const res = configure(new HTMLRewriter()).transform(responseOf('<!doctype html><b>x<!--c--></b>'));
    await assert.rejects(res.text(), Boom, name);
  }
});

test('StreamRewriter: write and end throw what the handler threw, and keep failing', () => {
  const boom = new Boom('x');
  const rw = new StreamRewriter(() => {}).on('b', { element() { throw boom; } });
  rw.write('<a>');
  assert.throws(() => rw.write('<b>'), (e) => e === boom);
  assert.throws(() => rw.write('<i>'), (e) => e === boom);
  assert.throws(() => rw.end(), (e) => e === boom);
  const atEnd = new StreamRewriter(() => {}).onDocument({ end() { throw boom; } });
  atEnd.write('<p>');
  assert.throws(() => atEnd.end(), (e) => e === boom);
});

test('a refused edit throws at the call; a handler that catches it goes on', async () => {
  const errors = [];
  const res = new HTMLRewriter().on('p, script', {
    element(el) {
      for (const f of [
        () => el.setAttribute('a b', '1'),
        () => (el.tagName = '1x'),
        () => el.tagName === 'script' && el.append('</script><b>'),
      ]) {
        try { f(); } catch (e) { errors.push(e instanceof TypeError); }
      }
      el.setAttribute('ok', '1');
    },
  }).transform(new Response('<p>x</p><script>s</script>'));
  assert.equal(await res.text(), '<p ok="1">x</p><script ok="1">s</script>');
  assert.deepEqual(errors, [true, true, true, true, true]);
});

test('renaming an end tag that is not in the input throws; before and after work there', async () => {
  const errors = [];
  const res = new HTMLRewriter().on('p', {
    element(el) {
      el.onEndTag((end) => {
        try { end.name = 'div'; } catch (e) { errors.push(e instanceof TypeError); }
        end.before('[').after(']');
      });
    },
  }).transform(new Response('<p>a<p>b'));
  assert.equal(await res.text(), '<p>a[]<p>b[]');
  assert.deepEqual(errors, [true, true]);
});

test('an edit that is not caught fails the stream', async () => {
  const res = new HTMLRewriter().on('p', { element(el) { el.setAttribute('=', 'x'); } }).transform(new Response('<p>'));
  await assert.rejects(res.text(), TypeError);
});

test('objects kept past their handler call throw', async () => {
  const kept = {};
  await new HTMLRewriter()
    .on('p', {
      element(el) { kept.element = el; el.onEndTag((end) => { kept.end = end; }); },
      text(t) { kept.text = t; },
      comments(c) { kept.comment = c; },
    })
    .onDocument({ doctype(d) { kept.doctype = d; }, end(e) { kept.end_ = e; } })
    .transform(new Response('<!doctype html><p>x<!--c--></p>'))
    .text();
  const uses = {
    element: (el) => el.tagName,
    end: (end) => end.name,
    text: (t) => t.text,
    comment: (c) => c.remove(),
    doctype: (d) => d.name,
    end_: (e) => e.append('x'),
  };
  const names = { element: 'Element', end: 'EndTag', text: 'Text', comment: 'Comment', doctype: 'Doctype', end_: 'DocumentEnd' };
  for (const [key, use] of Object.entries(uses)) {
    assert.throws(() => use(kept[key]), new RegExp(`this ${names[key]} is no longer valid: handlers may use it only during the call`));
  }
});

test('an object from another handler call is not the current node', async () => {
  let first;
  const res = new HTMLRewriter().on('p', {
    element(el) {
      if (first === undefined) first = el;
      else assert.throws(() => first.setAttribute('x', '1'), /no longer valid/);
    },
  }).transform(new Response('<p>1<p>2'));
  assert.equal(await res.text(), '<p>1<p>2');
});

test('re-entrant writes are refused', () => {
  const rw = new StreamRewriter(() => {});
  rw.on('p', { element() { rw.write('<b>'); } });
  assert.throws(() => rw.write('<p>'));
});

test('a rewriter used inside another rewriter\'s handler: both work, the outer node again after', async () => {
  const inner = [];
  const out = await rewrite('<p>x</p>', (rw) =>
    rw.on('p', {
      element(el) {
        const nested = new StreamRewriter((c) => inner.push(new TextDecoder().decode(c)));
        nested.on('b', { element(b) { b.setAttribute('in', el.tagName); } });
        nested.write('<b>');
        nested.end();
        el.setAttribute('out', inner.join(''));
      },
    }));
  assert.equal(inner.join(''), '<b in="p">');
  assert.equal(out, '<p out="<b in=&quot;p&quot;>">x</p>');
});
