// Content inserted as text is escaped for where it lands (htrewrite's rule;
// Workers' HTMLRewriter HTML-escapes text everywhere): normal text, RCDATA,
// attribute values; refused where escaping is impossible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewrite } from './helpers.mjs';

const text = `<b>"Tom" & 'Jerry'</b>`;

test('text in normal content: & < > escaped, quotes kept', async () => {
  const out = await rewrite('<p>x</p>', (rw) => rw.on('p', { element(el) { el.append(text); } }));
  assert.equal(out, `<p>x&lt;b&gt;"Tom" &amp; 'Jerry'&lt;/b&gt;</p>`);
});

test('text in RCDATA (<title>, <textarea>): & < escaped', async () => {
  const out = await rewrite('<title>t</title><textarea>a</textarea>', (rw) =>
    rw.on('title, textarea', { element(el) { el.append(text); } }));
  assert.equal(out, `<title>t&lt;b>"Tom" &amp; 'Jerry'&lt;/b></title><textarea>a&lt;b>"Tom" &amp; 'Jerry'&lt;/b></textarea>`);
});

test('attribute values: escaped for their quoting', async () => {
  const out = await rewrite(`<p a="1" b='2' c=3>`, (rw) =>
    rw.on('p', { element(el) { el.setAttribute('a', text).setAttribute('b', text).setAttribute('c', 'x y').setAttribute('d', text); } }));
  assert.equal(out, `<p a="<b>&quot;Tom&quot; &amp; 'Jerry'</b>" b='<b>"Tom" &amp; &#39;Jerry&#39;</b>' c="x y" d="<b>&quot;Tom&quot; &amp; 'Jerry'</b>">`);
});

test('script and style content: text goes in as is, refused where it would end the element', async () => {
  const errors = [];
  const out = await rewrite('<script>a</script><style>b</style>', (rw) =>
    rw.on('script, style', {
      element(el) {
        el.append(' && x < y');
        try { el.append(`</${el.tagName}>`); } catch (e) { errors.push(e.constructor.name); }
      },
    }));
  assert.equal(out, '<script>a && x < y</script><style>b && x < y</style>');
  assert.deepEqual(errors, ['TypeError', 'TypeError']);
});

test('{html: true} content goes in as given', async () => {
  const out = await rewrite('<p>x</p>', (rw) => rw.on('p', { element(el) { el.append(text, { html: true }); } }));
  assert.equal(out, `<p>x${text}</p>`);
});

test('comment text that would end the comment is refused', async () => {
  const errors = [];
  const out = await rewrite('<!--a-->', (rw) =>
    rw.onDocument({ comments(c) { try { c.text = 'x-->y'; } catch (e) { errors.push(e.constructor.name); } } }));
  assert.equal(out, '<!--a-->');
  assert.deepEqual(errors, ['TypeError']);
});
