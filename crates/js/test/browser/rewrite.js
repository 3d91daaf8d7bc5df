// The rewrite the browser check runs, in the page and in Node (for the expected output).
export const PAGE = '/examples/sample.html';

export function configure(rw) {
  return rw
    .on('head', { element(el) { el.append('<script src="/injected.js"></script>', { html: true }); } })
    .on('a[href^="http:"]', { element(el) { el.setAttribute('href', el.getAttribute('href').replace('http:', 'https:')); } })
    .on('img', { element(el) { el.setAttribute('loading', 'lazy'); } })
    .on('title', { text(t) { if (t.lastInTextNode) t.after(' (rewritten in the browser)'); } })
    .onDocument({ end(end) { end.append('<!-- htrewrite -->', { html: true }); } });
}
