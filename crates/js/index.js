// htrewrite for JavaScript: Cloudflare's HTMLRewriter API (`on`, `onDocument`,
// `transform`) and a low-level `StreamRewriter` (`write` / `end`), on the
// wasm-bindgen module built into ./pkg by build.sh. Types: index.d.ts.
import initWasm, {
  initSync as initWasmSync,
  CompiledSelectors,
  RawRewriter,
  isEncodingLabel,
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

// Registration kinds (src/handlers.rs `Registration`) and node kinds (src/nodes.rs `Kind`).
const ELEMENT = 0, COMMENTS = 1, TEXT = 2, DOCTYPE = 3, DOC_COMMENTS = 4, DOC_TEXT = 5, END = 6;
const K_ELEMENT = 0, K_END_TAG = 1, K_TEXT = 2, K_COMMENT = 3, K_DOCTYPE = 4, K_DOCUMENT_END = 5;
// Operations on a node (src/nodes.rs `Op`) and insertion places (`Place`).
const INSERT = 0, REMOVE = 1, REMOVED = 2, NAME_OR_TEXT = 3, SET_NAME_OR_TEXT = 4, LAST_IN_TEXT_NODE = 5,
  NAMESPACE_URI = 6, ATTRIBUTES = 7, GET_ATTRIBUTE = 8, SET_ATTRIBUTE = 9, REMOVE_ATTRIBUTE = 10,
  ON_END_TAG = 11, DOCTYPE_FIELD = 12, DEFER = 13;
const BEFORE = 0, AFTER = 1, PREPEND = 2, APPEND = 3, REPLACE = 4, INNER = 5;
const ALL_PLACES = 0b111111;

const isHtml = (options) => options != null && options.html === true;

// The handler call a node object belongs to: `{ op, later }`, where `op`
// applies an operation to the node (src/handlers.rs `call`) and is `null`
// once the call has returned; `later` is the `Later` of an element whose
// handler returned a Promise, until the Promise settles.
const CALL = Symbol('htrewrite.call');

/** Applies operation `code` to `node` while its handler call runs (or records it, see `Later`). */
function op(node, code, a, b, c) {
  const call = node[CALL];
  if (call.op !== null) return call.op(code, a, b, c);
  if (call.later != null) return call.later.apply(code, a, b, c);
  throw new Error(`this ${node.constructor.kind} is no longer valid: handlers may use it only during the call`);
}

/**
 * The edits of an element made after its handler returned a Promise (after
 * an `await`), kept until the Promise settles and then written into the
 * slots made when it was returned (src/nodes.rs `Op::Defer`): content before,
 * after, prepended, appended, the inner content, a replacement or removal.
 * Reads see the element as it was when the handler returned, with these
 * edits. Edits of the start tag (attributes, name), `removeAndKeepContent`
 * and `onEndTag` cannot wait: the start tag has been written.
 */
class Later {
  constructor(slots, element) {
    this.slots = slots;
    this.tagName = element.tagName;
    this.namespaceURI = element.namespaceURI;
    this.attributes = [...element.attributes];
    this.wasRemoved = element.removed;
    this.content = { [BEFORE]: [], [AFTER]: [], [PREPEND]: [], [APPEND]: [], [INNER]: null, [REPLACE]: null };
    this.removed = false;
  }

  apply(code, a, b, c) {
    switch (code) {
      case INSERT: {
        this.need(a, a === REPLACE ? 'replace' : a === INNER ? 'setInnerContent' : 'this insertion');
        const piece = [b, c];
        if (a === REPLACE) {
          this.content[REPLACE] = piece;
          this.removed = true;
        } else if (a === INNER) {
          this.content[INNER] = piece;
          this.content[PREPEND] = [];
          this.content[APPEND] = [];
        } else {
          this.content[a].push(piece);
        }
        return undefined;
      }
      case REMOVE:
        if (a) throw unsupportedLater('removeAndKeepContent');
        this.need(REPLACE, 'remove');
        this.content[REPLACE] = null;
        this.removed = true;
        return undefined;
      case REMOVED: return this.wasRemoved || this.removed;
      case NAME_OR_TEXT: return this.tagName;
      case NAMESPACE_URI: return this.namespaceURI;
      case ATTRIBUTES: return this.attributes.map(([n, v]) => [n, v]);
      case GET_ATTRIBUTE: {
        const name = a.toLowerCase();
        return this.attributes.find(([n]) => n.toLowerCase() === name)?.[1];
      }
      case SET_NAME_OR_TEXT: throw unsupportedLater('setting tagName');
      case SET_ATTRIBUTE: throw unsupportedLater('setAttribute');
      case REMOVE_ATTRIBUTE: throw unsupportedLater('removeAttribute');
      default: throw unsupportedLater('this operation');
    }
  }

  /** Throws unless a slot was made for `place`. */
  need(place, what) {
    if (this.slots[place] === undefined) {
      throw new TypeError(`htrewrite: ${what} after the handler's await: the element was removed, replaced or given new content before it`);
    }
  }

  /** Writes the edits into the slots (in `raw`); returns the output this lets go. */
  write(raw) {
    const out = [];
    const fill = (place, pieces) => {
      if (this.slots[place] === undefined) return;
      out.push(raw.fillSlot(this.slots[place], pieces.map(([text]) => text), Uint8Array.from(pieces, ([, html]) => (html ? 1 : 0))));
    };
    const cancel = (place, keep) => {
      if (this.slots[place] !== undefined) out.push(raw.cancelSlot(this.slots[place], keep));
    };
    // before and append add after earlier content, after and prepend in front of it (as the core's methods).
    fill(BEFORE, this.content[BEFORE]);
    fill(PREPEND, this.content[PREPEND].slice().reverse());
    fill(APPEND, this.content[APPEND]);
    fill(AFTER, this.content[AFTER].slice().reverse());
    if (this.content[INNER] !== null) fill(INNER, [this.content[INNER]]);
    else cancel(INNER, true);
    if (this.content[REPLACE] !== null) fill(REPLACE, [this.content[REPLACE]]);
    else cancel(REPLACE, !this.removed);
    return out;
  }
}

function unsupportedLater(what) {
  return new TypeError(`htrewrite: ${what} after the handler's await is not supported (the start tag is written): do it before the first await`);
}

/** What every node with content around it has: `before` and `after`. */
class Node {
  constructor(call) { this[CALL] = call; }
  before(content, options) { return put(this, BEFORE, content, options); }
  after(content, options) { return put(this, AFTER, content, options); }
}

/** Inserts `content` at `place` of `node`; returns `node` (for chaining). */
function put(node, place, content, options) {
  op(node, INSERT, place, String(content), isHtml(options));
  return node;
}

/** A node that can be replaced or removed: `Element`, `Text`, `Comment`. */
class Replaceable extends Node {
  get removed() { return op(this, REMOVED); }
  replace(content, options) { return put(this, REPLACE, content, options); }
  remove() {
    op(this, REMOVE, false);
    return this;
  }
}

/** An element's start, for `element` handlers; valid during the handler call only. */
class Element extends Replaceable {
  static kind = 'Element';
  #session;
  constructor(call, session) {
    super(call);
    this.#session = session;
  }
  get tagName() { return op(this, NAME_OR_TEXT); }
  set tagName(name) { op(this, SET_NAME_OR_TEXT, String(name)); }
  get namespaceURI() { return op(this, NAMESPACE_URI); }
  get attributes() { return op(this, ATTRIBUTES)[Symbol.iterator](); }
  getAttribute(name) { return op(this, GET_ATTRIBUTE, String(name)) ?? null; }
  hasAttribute(name) { return op(this, GET_ATTRIBUTE, String(name)) !== undefined; }
  setAttribute(name, value) {
    op(this, SET_ATTRIBUTE, String(name), String(value));
    return this;
  }
  removeAttribute(name) {
    op(this, REMOVE_ATTRIBUTE, String(name));
    return this;
  }
  prepend(content, options) { return put(this, PREPEND, content, options); }
  append(content, options) { return put(this, APPEND, content, options); }
  setInnerContent(content, options) {
    put(this, INNER, content, options);
    if (this[CALL].op !== null) this[CALL].innerSet = true;
    return this;
  }
  removeAndKeepContent() {
    op(this, REMOVE, true);
    return this;
  }
  onEndTag(handler) {
    if (typeof handler !== 'function') throw new TypeError('onEndTag: the handler must be a function');
    this.#session.onEndTag(this, handler);
  }
}

/** An element's end, for `onEndTag` handlers. */
class EndTag extends Node {
  static kind = 'EndTag';
  get name() { return op(this, NAME_OR_TEXT); }
  set name(name) { op(this, SET_NAME_OR_TEXT, String(name)); }
  remove() {
    op(this, REMOVE, false);
    return this;
  }
}

/** A chunk of text, for `text` handlers. */
class TextChunk extends Replaceable {
  static kind = 'Text';
  get text() { return op(this, NAME_OR_TEXT); }
  get lastInTextNode() { return op(this, LAST_IN_TEXT_NODE); }
}

/** A comment, for `comments` handlers. */
class Comment extends Replaceable {
  static kind = 'Comment';
  get text() { return op(this, NAME_OR_TEXT); }
  set text(text) { op(this, SET_NAME_OR_TEXT, String(text)); }
}

/** The DOCTYPE, for `doctype` handlers. */
class Doctype {
  static kind = 'Doctype';
  constructor(call) { this[CALL] = call; }
  get name() { return op(this, DOCTYPE_FIELD, 0) ?? null; }
  get publicId() { return op(this, DOCTYPE_FIELD, 1) ?? null; }
  get systemId() { return op(this, DOCTYPE_FIELD, 2) ?? null; }
}

/** The end of the document, for `end` handlers. */
class DocumentEnd {
  static kind = 'DocumentEnd';
  constructor(call) { this[CALL] = call; }
  append(content, options) {
    op(this, INSERT, APPEND, String(content), isHtml(options));
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
    // Elements whose handlers' Promises have not settled: the settling promises.
    this.waiting = new Set();
    // Called with the error when a handler's Promise rejects (transform: errors the stream).
    this.onError = undefined;
    // A write not all taken yet (held output at its bound): later writes and `end` follow it.
    this.blocked = undefined;
    this.raw = new RawRewriter(
      Uint32Array.from(registrations, (r) => r.kind),
      registrations.map((r) => r.selector),
      (index, kind, apply) => this.dispatch(index, kind, apply),
      compiled,
      encoding,
    );
  }

  dispatch(index, kind, apply) {
    const call = { op: apply, later: null, innerSet: false };
    try {
      let result, node;
      if (kind === K_END_TAG) {
        const handler = this.ends.get(index);
        this.ends.delete(index);
        result = handler(new EndTag(call));
      } else {
        const { object, fn } = this.registrations[index];
        node = this.node(kind, call);
        result = fn.call(object, node);
      }
      if (result != null && typeof result.then === 'function') {
        if (kind !== K_ELEMENT) {
          throw new TypeError('htrewrite: a handler returned a Promise; only element handlers may be async');
        }
        this.defer(node, call, result);
      }
    } catch (e) {
      if (this.error === undefined) this.error = e;
      throw e;
    } finally {
      call.op = null;
    }
  }

  /**
   * Element `el`'s handler returned `promise`: slots are made for the edits
   * to come (all places, less those the handler's synchronous part already
   * decided), and filled when it settles. Output after the first slot
   * waits; parsing and other handlers go on.
   */
  defer(el, call, promise) {
    let mask = ALL_PLACES;
    if (el.removed) mask &= ~(1 << REPLACE | 1 << INNER | 1 << PREPEND | 1 << APPEND);
    if (call.innerSet) mask &= ~(1 << INNER);
    const later = new Later(op(el, DEFER, mask), el);
    call.later = later;
    const settled = Promise.resolve(promise).then(
      () => {
        call.later = null;
        this.settle(later);
      },
      (e) => {
        call.later = null;
        this.fail(e);
      },
    );
    this.waiting.add(settled);
    settled.then(() => this.waiting.delete(settled));
  }

  /** Writes `later`'s edits; output flows to the first slot still waiting. */
  settle(later) {
    if (this.raw === undefined) return;
    try {
      for (const out of later.write(this.raw)) if (out.length > 0) this.output(out);
    } catch (e) {
      this.fail(e);
    }
  }

  /** The rewrite fails with `e` (a handler's Promise rejected, or its edits were refused). */
  fail(e) {
    if (this.error === undefined) this.error = e;
    if (this.raw !== undefined) {
      this.raw.free();
      this.raw = undefined;
      this.onError?.(this.error);
    }
  }

  /** Settles when every handler Promise has settled and its edits are written. */
  async waitAll() {
    while (this.waiting.size > 0) await Promise.all([...this.waiting]);
  }

  node(kind, call) {
    switch (kind) {
      case K_ELEMENT: return new Element(call, this);
      case K_TEXT: return new TextChunk(call);
      case K_COMMENT: return new Comment(call);
      case K_DOCTYPE: return new Doctype(call);
      case K_DOCUMENT_END: return new DocumentEnd(call);
      default: throw new Error(`htrewrite: unknown node kind ${kind}`);
    }
  }

  onEndTag(element, handler) {
    const id = this.nextEnd;
    this.nextEnd = (this.nextEnd + 1) >>> 0;
    op(element, ON_END_TAG, id);
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

  /**
   * Rewrites `chunk`; returns a Promise when output held behind handler
   * Promises filled the bound (the core's `hold_limit`) before all of it
   * was taken: the rest is written once earlier Promises settle. Chunks
   * written meanwhile (not awaited) are copied and follow it in order.
   */
  write(chunk) {
    if (this.blocked !== undefined) {
      const copy = toBytes(chunk).slice();
      return this.track(this.blocked.then(() => this.writeNow(copy)));
    }
    const written = this.writeNow(toBytes(chunk));
    return written === undefined ? undefined : this.track(written);
  }

  /** Writes `bytes` now; a Promise when not all was taken (the rest, copied, is written as handler Promises settle). */
  writeNow(bytes) {
    this.run((raw) => raw.write(bytes));
    if (this.raw.taken === bytes.length) return undefined;
    let rest = bytes.slice(this.raw.taken);
    return (async () => {
      for (;;) {
        if (this.waiting.size === 0) throw new Error('htrewrite: input not taken while no handler Promise is waiting');
        await Promise.race([...this.waiting]);
        this.run((raw) => raw.write(rest));
        if (this.raw.taken === rest.length) return;
        rest = rest.subarray(this.raw.taken);
      }
    })();
  }

  /** `written` is the write later writes and `end` wait for, until it settles. */
  track(written) {
    this.blocked = written;
    const clear = () => {
      if (this.blocked === written) this.blocked = undefined;
    };
    written.then(clear, clear);
    return written;
  }

  /** Ends the document; returns a Promise when handler Promises are still waiting (it settles once all are written). */
  end() {
    if (this.blocked !== undefined) return this.blocked.then(() => this.end());
    this.run((raw) => raw.finishInput());
    if (this.waiting.size === 0) return this.close();
    return this.waitAll().then(() => this.close());
  }

  close() {
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
        session.onError = (e) => controller.error(e);
      },
      transform(chunk) {
        return session.write(chunk);
      },
      flush() {
        return session.end();
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

  /**
   * Rewrites the next chunk (`Uint8Array`, `ArrayBuffer` or string); output
   * goes to the callback. Throws what a handler threw. Returns a Promise
   * when output held behind async element handlers reached its bound: the
   * rest of the chunk is taken as their Promises settle (await it before
   * the next write).
   */
  write(chunk) {
    return this.#started().write(chunk);
  }

  /**
   * Ends the document (elements still open end here; `end` handlers run).
   * When async element handlers are still waiting it returns a Promise that
   * settles once their edits are written (and rejects with what a rejected
   * handler Promise gave); else it ends at once.
   */
  end() {
    return this.#started().end();
  }

  #started() {
    this.#session ??= this.session(this.#output, this.#encoding, true);
    return this.#session;
  }
}
