// Types of htrewrite's JavaScript API (index.js): Cloudflare Workers'
// HTMLRewriter, and StreamRewriter for environments without Response.

/** `{html: true}` inserts markup as given; otherwise content is text, escaped for where it lands. */
export interface ContentOptions {
  html?: boolean;
}

/** An element's start tag and content, as `element` handlers see it (valid during the call only). */
export interface Element {
  /** The tag name, lowercased; setting it renames the start and end tags. */
  tagName: string;
  readonly namespaceURI: string;
  /** `[name, value]` pairs, in source order, edits included. */
  readonly attributes: IterableIterator<[string, string]>;
  /** Whether the element was removed or replaced. */
  readonly removed: boolean;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  setAttribute(name: string, value: string): this;
  removeAttribute(name: string): this;
  before(content: string, options?: ContentOptions): this;
  after(content: string, options?: ContentOptions): this;
  prepend(content: string, options?: ContentOptions): this;
  append(content: string, options?: ContentOptions): this;
  replace(content: string, options?: ContentOptions): this;
  setInnerContent(content: string, options?: ContentOptions): this;
  remove(): this;
  removeAndKeepContent(): this;
  /** Calls `handler` where the element ends (its end tag, an implied end, or the end of input). */
  onEndTag(handler: (endTag: EndTag) => void): void;
}

/** An element's end, as `onEndTag` handlers see it. */
export interface EndTag {
  /** The end tag's name (as renamed); setting it renames the end tag. */
  name: string;
  before(content: string, options?: ContentOptions): this;
  after(content: string, options?: ContentOptions): this;
  remove(): this;
}

/** What text chunks and comments share. */
export interface ReplaceableNode {
  readonly removed: boolean;
  before(content: string, options?: ContentOptions): this;
  after(content: string, options?: ContentOptions): this;
  replace(content: string, options?: ContentOptions): this;
  remove(): this;
}

/** A chunk of a text node. */
export interface Text extends ReplaceableNode {
  readonly text: string;
  readonly lastInTextNode: boolean;
}

/** A comment. */
export interface Comment extends ReplaceableNode {
  text: string;
}

/** The DOCTYPE. */
export interface Doctype {
  readonly name: string | null;
  readonly publicId: string | null;
  readonly systemId: string | null;
}

/** The end of the document. */
export interface DocumentEnd {
  append(content: string, options?: ContentOptions): this;
}

/** Handlers for `.on(selector, handlers)`: methods, called with `this` bound to the object. */
export interface ElementHandlers {
  /**
   * May be async: edits made after its first `await` (insertions, `replace`,
   * `setInnerContent`, `remove`) land when the Promise settles; output after
   * the element waits for it, parsing goes on. A rejected Promise fails the rewrite.
   */
  element?(element: Element): void | Promise<void>;
  comments?(comment: Comment): void;
  text?(text: Text): void;
}

/** Handlers for `.onDocument(handlers)`. */
export interface DocumentHandlers {
  doctype?(doctype: Doctype): void;
  comments?(comment: Comment): void;
  text?(text: Text): void;
  end?(end: DocumentEnd): void;
}

/** What `init` can load the module from. */
export type WasmInput = string | URL | Request | Response | BufferSource | WebAssembly.Module;

/** Loads the WebAssembly module (once, before use); without `input`, the one next to index.js. */
export function init(input?: WasmInput | Promise<WasmInput>): Promise<void>;

/** Loads the module synchronously (Workers-like runtimes that import `.wasm` as a module). */
export function initSync(module: BufferSource | WebAssembly.Module): void;

declare class Handlers {
  /** Registers handlers on elements matching `selector`; a bad selector throws a `TypeError` naming it. */
  on(selector: string, handlers: ElementHandlers): this;
  /** Registers handlers on the whole document. */
  onDocument(handlers: DocumentHandlers): this;
}

/** Cloudflare Workers' HTMLRewriter. */
export class HTMLRewriter extends Handlers {
  constructor();
  /**
   * A Response with `response`'s status and headers (minus Content-Length)
   * whose body is rewritten as it streams; a handler that throws errors the
   * body with what it threw.
   */
  transform(response: Response): Response;
}

/** Options of `StreamRewriter`. */
export interface StreamRewriterOptions {
  /** A WHATWG encoding label (default `utf-8`). */
  encoding?: string;
}

/** A low-level streaming rewriter: `write` chunks, then `end`; output goes to the callback. */
export class StreamRewriter extends Handlers {
  constructor(output: (chunk: Uint8Array) => void, options?: StreamRewriterOptions);
  /**
   * Rewrites the next chunk; throws what a handler threw. A Promise when
   * output held behind async element handlers reached its bound: await it
   * before the next write.
   */
  write(chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string): void | Promise<void>;
  /**
   * Ends the document; a Promise when async element handlers are still
   * waiting, settled once their edits are written (rejected with what a
   * rejected handler Promise gave).
   */
  end(): void | Promise<void>;
}
