// htrewrite for JavaScript: Cloudflare's HTMLRewriter API (`on`, `onDocument`,
// `transform`) and a low-level `StreamRewriter` (`write` / `end`), on the
// wasm-bindgen module built into ./pkg by build.sh. Types: index.d.ts.
import initWasm, {
  initSync as initWasmSync,
  CompiledSelectors,
  RawRewriter,
  attributes,
  doctype,
  getAttribute,
  insert,
  isEncodingLabel,
  lastInTextNode,
  name_or_text,
  namespaceUri,
  onEndTag,
  remove,
  removeAttribute,
  removed,
  setAttribute,
  set_name_or_text,
  validateSelector,
} from './pkg/htrewrite_js.js';

const WASM_URL = new URL('./pkg/htrewrite_js_bg.wasm', import.meta.url);

/**
 * Loads the WebAssembly module; call once before using the rewriters.
 * `input` may be a URL, a `Response`, bytes or a `WebAssembly.Module`;
 * without it the module next to this file is loaded (read from disk when
 * this file is on disk: Node, Deno).
 */
export async function init(input) {
  if (input === undefined && WASM_URL.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    input = await readFile(WASM_URL);
  }
  await initWasm(input === undefined ? { module_or_path: WASM_URL } : { module_or_path: input });
}

/** Loads the module synchronously from a `WebAssembly.Module` or its bytes (Workers-like runtimes). */
export function initSync(module) {
  initWasmSync({ module });
}

// Registration kinds (src/handlers.rs `Registration`) and token kinds (src/live.rs `Kind`).
const ELEMENT = 0, COMMENTS = 1, TEXT = 2, DOCTYPE = 3, DOC_COMMENTS = 4, DOC_TEXT = 5, END = 6;
const K_ELEMENT = 0, K_END_TAG = 1, K_TEXT = 2, K_COMMENT = 3, K_DOCTYPE = 4, K_DOCUMENT_END = 5;
// Insertion places (src/nodes.rs `Place`).
const BEFORE = 0, AFTER = 1, PREPEND = 2, APPEND = 3, REPLACE = 4, INNER = 5;

const isHtml = (options) => options != null && options.html === true;

// The token of the handler call a node object belongs to (src/live.rs).
const TOKEN = Symbol('htrewrite.token');

/** What every node with content around it has: `before` and `after`. */
class Node {
  constructor(token) { this[TOKEN] = token; }
  before(content, options) { return put(this, BEFORE, content, options); }
  after(content, options) { return put(this, AFTER, content, options); }
}

/** Inserts `content` at `place` of `node`; returns `node` (for chaining). */
function put(node, place, content, options) {
  insert(node[TOKEN], place, String(content), isHtml(options));
  return node;
}

/** A node that can be replaced or removed: `Element`, `Text`, `Comment`. */
class Replaceable extends Node {
  get removed() { return removed(this[TOKEN]); }
  replace(content, options) { return put(this, REPLACE, content, options); }
  remove() {
    remove(this[TOKEN], false);
    return this;
  }
}

/** An element's start, for `element` handlers; valid during the handler call only. */
class Element extends Replaceable {
  #session;
  constructor(token, session) {
    super(token);
    this.#session = session;
  }
  get tagName() { return name_or_text(this[TOKEN]); }
  set tagName(name) { set_name_or_text(this[TOKEN], String(name)); }
  get namespaceURI() { return namespaceUri(this[TOKEN]); }
  get attributes() { return attributes(this[TOKEN])[Symbol.iterator](); }
  getAttribute(name) { return getAttribute(this[TOKEN], String(name)) ?? null; }
  hasAttribute(name) { return getAttribute(this[TOKEN], String(name)) !== undefined; }
  setAttribute(name, value) {
    setAttribute(this[TOKEN], String(name), String(value));
    return this;
  }
  removeAttribute(name) {
    removeAttribute(this[TOKEN], String(name));
    return this;
  }
  prepend(content, options) { return put(this, PREPEND, content, options); }
  append(content, options) { return put(this, APPEND, content, options); }
  setInnerContent(content, options) { return put(this, INNER, content, options); }
  removeAndKeepContent() {
    remove(this[TOKEN], true);
    return this;
  }
  onEndTag(handler) {
    if (typeof handler !== 'function') throw new TypeError('onEndTag: the handler must be a function');
    this.#session.onEndTag(this[TOKEN], handler);
  }
}

/** An element's end, for `onEndTag` handlers. */
class EndTag extends Node {
  get name() { return name_or_text(this[TOKEN]); }
  set name(name) { set_name_or_text(this[TOKEN], String(name)); }
  remove() {
    remove(this[TOKEN], false);
    return this;
  }
}

/** A chunk of text, for `text` handlers. */
class TextChunk extends Replaceable {
  get text() { return name_or_text(this[TOKEN]); }
  get lastInTextNode() { return lastInTextNode(this[TOKEN]); }
}

/** A comment, for `comments` handlers. */
class Comment extends Replaceable {
  get text() { return name_or_text(this[TOKEN]); }
  set text(text) { set_name_or_text(this[TOKEN], String(text)); }
}

/** The DOCTYPE, for `doctype` handlers. */
class Doctype {
  #t;
  constructor(token) { this.#t = token; }
  get name() { return doctype(this.#t, 0) ?? null; }
  get publicId() { return doctype(this.#t, 1) ?? null; }
  get systemId() { return doctype(this.#t, 2) ?? null; }
}

/** The end of the document, for `end` handlers. */
class DocumentEnd {
  #t;
  constructor(token) { this.#t = token; }
  append(content, options) {
    insert(this.#t, APPEND, String(content), isHtml(options));
    return this;
  }
}

/** One document being rewritten: the raw rewriter, the handlers, the first error a handler threw. */
class Session {
  constructor(registrations, compiled, encoding, output) {
    this.registrations = registrations;
    this.output = output;
    this.ends = new Map();
    this.nextEnd = 0;
    this.error = undefined;
    this.raw = new RawRewriter(
      Uint32Array.from(registrations, (r) => r.kind),
      registrations.map((r) => r.selector),
      (index, token) => this.dispatch(index, token),
      compiled,
      encoding,
    );
  }

  dispatch(index, token) {
    try {
      let result;
      switch (token & 7) {
        case K_END_TAG: {
          const handler = this.ends.get(index);
          this.ends.delete(index);
          result = handler(new EndTag(token));
          break;
        }
        default: {
          const { object, fn } = this.registrations[index];
          result = fn.call(object, this.node(token));
        }
      }
      if (result != null && typeof result.then === 'function') {
        throw new TypeError('htrewrite: a handler returned a Promise; async handlers are not supported');
      }
    } catch (e) {
      if (this.error === undefined) this.error = e;
      throw e;
    }
  }

  node(token) {
    switch (token & 7) {
      case K_ELEMENT: return new Element(token, this);
      case K_TEXT: return new TextChunk(token);
      case K_COMMENT: return new Comment(token);
      case K_DOCTYPE: return new Doctype(token);
      case K_DOCUMENT_END: return new DocumentEnd(token);
      default: throw new Error(`htrewrite: unknown node kind ${token & 7}`);
    }
  }

  onEndTag(token, handler) {
    const id = this.nextEnd;
    this.nextEnd = (this.nextEnd + 1) >>> 0;
    onEndTag(token, id);
    this.ends.set(id, handler);
  }

  /** Runs `f` on the raw rewriter; a failure caused by a handler is rethrown as what the handler threw. */
  run(f) {
    if (this.raw === undefined) throw this.error ?? new Error('htrewrite: the rewriter has ended');
    let out;
    try {
      out = f(this.raw);
    } catch (e) {
      this.raw.free();
      this.raw = undefined;
      if (this.error === undefined) this.error = e;
      throw this.error;
    }
    if (out.length > 0) this.output(out);
  }

  write(chunk) {
    this.run((raw) => raw.write(toBytes(chunk)));
  }

  end() {
    this.run((raw) => raw.end());
    this.raw.free();
    this.raw = undefined;
    this.error = new Error('htrewrite: the rewriter has ended');
  }
}

const encoder = new TextEncoder();
function toBytes(chunk) {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return encoder.encode(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('htrewrite: chunks must be Uint8Array, ArrayBuffer or string');
}

/** Handlers by selector and for the whole document, shared by both rewriters. */
class Handlers {
  #registrations = [];
  #compiled = undefined;
  #fixed = false;

  /** Calls `handlers.element`, `.comments`, `.text` (methods, `this` bound to `handlers`) on matches of `selector`. */
  on(selector, handlers) {
    this.#check();
    selector = String(selector);
    validateSelector(selector);
    this.#add(handlers, [['element', ELEMENT], ['comments', COMMENTS], ['text', TEXT]], selector);
    return this;
  }

  /** Calls `handlers.doctype`, `.comments`, `.text`, `.end` on the whole document. */
  onDocument(handlers) {
    this.#check();
    this.#add(handlers, [['doctype', DOCTYPE], ['comments', DOC_COMMENTS], ['text', DOC_TEXT], ['end', END]], '');
    return this;
  }

  #check() {
    if (this.#fixed) throw new TypeError('htrewrite: handlers cannot be added once writing has begun');
  }

  #add(handlers, keys, selector) {
    if (handlers === null || typeof handlers !== 'object' && typeof handlers !== 'function') {
      throw new TypeError('htrewrite: handlers must be an object with handler methods');
    }
    for (const [key, kind] of keys) {
      const fn = handlers[key];
      if (fn === undefined) continue;
      if (typeof fn !== 'function') throw new TypeError(`htrewrite: handlers.${key} must be a function`);
      this.#registrations.push({ kind, selector, object: handlers, fn });
    }
    this.#compiled = undefined;
  }

  /** A new document with these handlers, writing to `output`. */
  session(output, encoding, fix) {
    if (fix) this.#fixed = true;
    if (this.#compiled === undefined) {
      this.#compiled = new CompiledSelectors(this.#registrations.filter((r) => r.selector !== '').map((r) => r.selector));
    }
    return new Session(this.#registrations.slice(), this.#compiled, encoding, output);
  }
}

function charsetOf(contentType) {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return m !== null && isEncodingLabel(m[1]) ? m[1] : undefined;
}

/**
 * Cloudflare Workers' `HTMLRewriter`: register handlers with `on` and
 * `onDocument`, then `transform(response)` streams the body through them.
 */
export class HTMLRewriter extends Handlers {
  /**
   * A `Response` with `response`'s status and headers (without
   * `Content-Length`) whose body is `response`'s, rewritten chunk by chunk
   * as it is read. The document's encoding is the `Content-Type` charset
   * when it names one, else UTF-8.
   */
  transform(response) {
    if (response == null || !('body' in response) || !('headers' in response)) {
      throw new TypeError('htrewrite: transform() takes a Response');
    }
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    const init = { status: response.status, statusText: response.statusText, headers };
    if (response.body === null) return new Response(null, init);
    const session = this.session(undefined, charsetOf(headers.get('content-type')), false);
    const rewritten = new TransformStream({
      start(controller) {
        session.output = (chunk) => controller.enqueue(chunk);
      },
      transform(chunk) {
        session.write(chunk);
      },
      flush() {
        session.end();
      },
    });
    return new Response(response.body.pipeThrough(rewritten), init);
  }
}

/**
 * A low-level streaming rewriter for environments without `Response`:
 * register handlers with `on` and `onDocument`, then `write` chunks and
 * `end`; `output` gets each piece of output as a `Uint8Array`.
 */
export class StreamRewriter extends Handlers {
  #output;
  #encoding;
  #session = undefined;

  /** `options.encoding`: a WHATWG label for the document's encoding (UTF-8 by default). */
  constructor(output, options = {}) {
    super();
    if (typeof output !== 'function') throw new TypeError('htrewrite: the output callback must be a function');
    if (options.encoding !== undefined && !isEncodingLabel(String(options.encoding))) {
      throw new TypeError(`htrewrite: unknown encoding ${JSON.stringify(String(options.encoding))}`);
    }
    this.#output = output;
    this.#encoding = options.encoding === undefined ? undefined : String(options.encoding);
  }

  /** Rewrites the next chunk (`Uint8Array`, `ArrayBuffer` or string); output goes to the callback. Throws what a handler threw. */
  write(chunk) {
    this.#started().write(chunk);
  }

  /** Ends the document (elements still open end here; `end` handlers run). */
  end() {
    this.#started().end();
  }

  #started() {
    this.#session ??= this.session(this.#output, this.#encoding, true);
    return this.#session;
  }
}
