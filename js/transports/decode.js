// What a value on the wire holds, for the learner (learn.js), whatever form it travels in: the
// visible text of HTML (NiceGUI's and Solara's updates carry rendered HTML), the bytes of base64
// (Mesop's protobuf inside SSE), and the fields of binary frames without a schema: protobuf
// (Streamlit's ForwardMsg), MessagePack and CBOR. Pure: no DOM; every decoder is bounded and
// returns null rather than throw on what it cannot read.

// Tags whose presence makes a string HTML (a closing tag of a common element, or a line break):
// a string that only has a `<` (code, a comparison) is left as it is.
const HTML = /<\/(?:p|div|span|strong|em|b|i|u|s|code|pre|li|ul|ol|h[1-6]|a|table|thead|tbody|td|tr|th|blockquote|template|section|article|small|sup|sub|mark|del|ins)\s*>|<br\s*\/?>/i;
const ENTITIES = /** @type {Record<string, string>} */ ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', '#39': "'" });

/**
 * Whether `s` is HTML (see HTML above).
 * @param {string} s
 */
export function isHtml(s) {
  return s.length > 6 && s.includes('<') && (HTML.test(s) || FRAGMENT.test(s));
}

// A string that begins with a whole start tag (of any element, a void one such as `<input …>`
// too) and ends with a tag: a fragment of markup sent to be swapped into the page.
const FRAGMENT = /^\s*<[a-zA-Z][\w:-]*(?:\s[^<>]*)?\/?>(?:[\s\S]*>)?\s*$/;

/**
 * HTML sent escaped inside a value (Bokeh's markup models carry `&lt;p&gt;…`): the markup, or
 * null when `s` is not that.
 * @param {string} s
 */
export function unescapedHtml(s) {
  if (!/&lt;\/?[a-zA-Z]/.test(s)) return null;
  const u = s.replace(/&(lt|gt|quot|#39|apos|amp);/g, (_, e) => ENTITIES[e]);
  return isHtml(u) ? u : null;
}

// Elements that have no closing tag.
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
// The attributes that name how a fragment is swapped into the page, and where (htmx's
// `hx-swap-oob`, `data-swap`): `beforeend`, `beforeend:#target`, `true`.
const SWAPS = ['hx-swap-oob', 'data-swap-oob', 'data-swap', 'swap', 'sse-swap', 'ws-swap'];
const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[^\s=<>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>]+))?)*)\s*(\/?)>/g;
const ATTR = /([^\s=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'<>]+)))?/g;

/**
 * The fragments of an HTML string that name where they go: each top-level element with an id,
 * or a swap attribute naming a target, as `{ target, swap, text }` (the text a browser shows of
 * what it swaps in), and each element with an id inside them (`swap: 'create'`: the element it
 * creates, with its first words, if any). Null when no fragment names a target (the string is
 * then one value). The text of top-level elements that name no target is one more, with an
 * empty target. At most 64, in their order. `ids`: whether an id alone names a target (a frame
 * of markup, swapped by id as htmx's WebSocket and SSE extensions do), or only a swap attribute
 * (markup inside a value, whose headings may carry ids).
 * @param {string} html
 * @param {boolean} [ids]
 * @returns {Array<{ target: string, swap: string, text: string }> | null}
 */
export function fragments(html, ids = true) {
  /** @type {Array<{ target: string, swap: string, text: string }>} */
  const out = [];
  // The open elements: [tag, where its content starts, its target and swap (top level), or its
  // id (inside one)].
  /** @type {Array<{ tag: string, at: number, from: number, target: string, swap: string }>} */
  const open = [];
  // Where the top-level fragments that name a target are, to leave them out of the rest.
  /** @type {Array<[number, number]>} */
  const spans = [];
  let named = false;
  TAG.lastIndex = 0;
  for (let m; (m = TAG.exec(html)) && out.length < 64; ) {
    const [whole, close, name, attrs, self] = m;
    const tag = name.toLowerCase();
    if (close) {
      // Its element, and the ones left open inside it (partial markup), end here.
      const at = open.map((o) => o.tag).lastIndexOf(tag);
      if (at < 0) continue;
      while (open.length > at) {
        const o = /** @type {{ tag: string, at: number, from: number, target: string, swap: string }} */ (open.pop());
        if (o.target) out.push({ target: o.target, swap: o.swap, text: visibleText(html.slice(o.from, m.index), false) });
        if (o.target && open.length === 0) spans.push([o.at, m.index + whole.length]);
      }
      continue;
    }
    /** @type {Record<string, string>} */
    const a = {};
    ATTR.lastIndex = 0;
    for (let x; (x = ATTR.exec(attrs)); ) a[x[1].toLowerCase()] = x[2] ?? x[3] ?? x[4] ?? '';
    let target = '';
    let swap = '';
    if (open.length === 0) {
      const how = SWAPS.map((k) => a[k]).find((v) => v !== undefined);
      if (how !== undefined) {
        const i = how.indexOf(':');
        swap = (i >= 0 ? how.slice(0, i) : how).trim() || 'outerHTML';
        if (swap === 'true') swap = 'outerHTML';
        target = i >= 0 ? how.slice(i + 1).trim().replace(/^#/, '') : a.id || '';
      } else if (a.id && ids) [target, swap] = [a.id, 'outerHTML'];
    } else if (a.id && open.some((o) => o.target)) [target, swap] = [a.id, 'create'];
    if (target) named = true;
    if (self || VOID.has(tag)) {
      if (target) out.push({ target, swap, text: '' });
      if (target && open.length === 0) spans.push([m.index, m.index + whole.length]);
      continue;
    }
    open.push({ tag, at: m.index, from: m.index + whole.length, target, swap });
  }
  // What is still open at the end (a fragment cut short) ends with the string.
  while (open.length) {
    const o = /** @type {{ tag: string, at: number, from: number, target: string, swap: string }} */ (open.pop());
    if (o.target) out.push({ target: o.target, swap: o.swap, text: visibleText(html.slice(o.from), false) });
    if (o.target && open.length === 0) spans.push([o.at, html.length]);
  }
  if (!named) return null;
  // Outermost first, as the page applies them; what names no target last.
  out.reverse().sort((x, y) => (x.swap === 'create' ? 1 : 0) - (y.swap === 'create' ? 1 : 0));
  let rest = '';
  let from = 0;
  for (const [a, b] of spans.sort((x, y) => x[0] - y[0])) {
    rest += html.slice(from, a);
    from = b;
  }
  rest = visibleText(rest + html.slice(from), false);
  if (rest.trim()) out.push({ target: '', swap: '', text: rest });
  return out;
}

/**
 * The text a browser shows of an HTML string: scripts, styles and comments dropped, tags
 * removed, entities decoded, the white space at its end (which no browser shows) left out
 * (kept with `trim` false: a fragment's text is appended to what came before).
 * @param {string} html
 * @param {boolean} [trim]
 */
export function visibleText(html, trim = true) {
  const text = html
    .replace(/<(script|style|template-script)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[a-zA-Z/!][^<>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, e) => {
      const k = e.toLowerCase();
      if (k[0] === '#') {
        const n = k[1] === 'x' ? parseInt(k.slice(2), 16) : parseInt(k.slice(1), 10);
        return n > 0 && n < 0x110000 ? String.fromCodePoint(n) : m;
      }
      return ENTITIES[k] ?? m;
    });
  return trim ? text.trimEnd() : text;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/**
 * The bytes of a base64 string long enough to hold a message (12 characters or more), or null.
 * @param {string} s
 * @returns {Uint8Array | null}
 */
export function base64Bytes(s) {
  if (s.length < 12 || s.length % 4 !== 0 || s.length > 8 * 1024 * 1024 || !BASE64.test(s)) return null;
  try {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

const strict = new TextDecoder('utf-8', { fatal: true });
/**
 * `bytes` as text when they are valid UTF-8 with no control characters but whitespace; else null.
 * @param {Uint8Array} bytes
 */
export function textOf(bytes) {
  let s;
  try {
    s = strict.decode(bytes);
  } catch {
    return null;
  }
  return /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(s) ? null : s;
}

/** Nesting a decoder follows at most. */
const DEPTH = 64;

/**
 * A protobuf message read without its schema: an object whose keys are `field.occurrence` (the
 * third field 3 of a message is `3.2`) and whose values are numbers, strings (a length-delimited
 * field that is text), nested messages (one that parses whole as a message), or null (bytes).
 * Null when `bytes` do not parse whole as a message.
 * @param {Uint8Array} bytes
 * @param {number} [depth]
 * @returns {Record<string, unknown> | null}
 */
export function protobuf(bytes, depth = 0) {
  if (depth > DEPTH || bytes.length === 0) return null;
  /** @type {Record<string, unknown>} */
  const out = {};
  /** @type {Record<number, number>} */
  const seen = {};
  let i = 0;
  const varint = () => {
    let v = 0;
    let mul = 1;
    for (let n = 0; n < 10; n++) {
      if (i >= bytes.length) return -1;
      const b = bytes[i++];
      v += (b & 0x7f) * mul;
      if (!(b & 0x80)) return v;
      mul *= 128;
    }
    return -1;
  };
  while (i < bytes.length) {
    const key = varint();
    if (key < 0) return null;
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field < 1 || field > 536870911) return null;
    /** @type {unknown} */
    let value;
    if (wire === 0) {
      value = varint();
      if (/** @type {number} */ (value) < 0) return null;
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (i + n > bytes.length) return null;
      i += n;
      value = null;
    } else if (wire === 2) {
      const n = varint();
      if (n < 0 || i + n > bytes.length) return null;
      const part = bytes.subarray(i, i + n);
      i += n;
      // A nested message that is also valid text (its first tag a newline, its length a letter:
      // Mesop's `\nN...`) is the message when it parses whole with text of its own inside.
      const inner = protobuf(part, depth + 1);
      const text = textOf(part);
      value = inner !== null && (text === null || hasText(inner)) ? inner : text;
    } else return null; // groups (3, 4) are deprecated and never seen in these apps
    const k = (seen[field] = (seen[field] ?? -1) + 1);
    out[`${field}.${k}`] = value;
  }
  return out;
}

/**
 * Whether a decoded message holds a string field (at any depth).
 * @param {Record<string, unknown>} m
 * @returns {boolean}
 */
function hasText(m) {
  for (const v of Object.values(m)) if (typeof v === 'string' ? v.length > 0 : v !== null && typeof v === 'object' && hasText(/** @type {Record<string, unknown>} */ (v))) return true;
  return false;
}

const utf8 = new TextDecoder();

/**
 * A MessagePack value decoded whole (maps with string keys, arrays, strings, numbers, booleans;
 * binary data as null), or undefined when `bytes` are not one whole MessagePack map or array.
 * @param {Uint8Array} bytes
 * @returns {unknown}
 */
export function messagePack(bytes) {
  const b0 = bytes[0];
  if (!((b0 >= 0x80 && b0 <= 0x9f) || (b0 >= 0xdc && b0 <= 0xdf))) return undefined;
  try {
    const r = new MsgPack(bytes);
    const v = r.value(0);
    return r.i === bytes.length ? v : undefined;
  } catch {
    return undefined;
  }
}

// A MessagePack reader over `bytes` (msgpack.org's spec); each method throws where the bytes end
// too soon or say something no value is.
class MsgPack {
  /** @param {Uint8Array} bytes */
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.i = 0;
  }

  /** @param {number} n */
  need(n) {
    if (this.i + n > this.bytes.length) throw new RangeError('short');
    const at = this.i;
    this.i += n;
    return at;
  }

  /** @param {number} n */
  str(n) {
    const at = this.need(n);
    return utf8.decode(this.bytes.subarray(at, at + n));
  }

  /** @param {number} n */
  uint(n) {
    const at = this.need(n);
    const v = this.view;
    return n === 1 ? v.getUint8(at) : n === 2 ? v.getUint16(at) : n === 4 ? v.getUint32(at) : Number(v.getBigUint64(at));
  }

  /**
   * @param {number} depth
   * @returns {unknown}
   */
  value(depth) {
    if (depth > DEPTH) throw new RangeError('deep');
    const b = this.bytes[this.need(1)];
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 256;
    if (b >= 0xa0 && b <= 0xbf) return this.str(b & 0x1f);
    if (b >= 0x90 && b <= 0x9f) return this.list(b & 0x0f, depth);
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f, depth);
    if (b === 0xc0) return null;
    if (b === 0xc2 || b === 0xc3) return b === 0xc3;
    if (b >= 0xcc && b <= 0xcf) return this.uint(1 << (b - 0xcc));
    if (b >= 0xd0 && b <= 0xd3) return this.int(1 << (b - 0xd0));
    if (b === 0xca) return this.view.getFloat32(this.need(4));
    if (b === 0xcb) return this.view.getFloat64(this.need(8));
    if (b >= 0xd9 && b <= 0xdb) return this.str(this.uint(1 << (b - 0xd9)));
    if (b === 0xdc || b === 0xdd) return this.list(this.uint(b === 0xdc ? 2 : 4), depth);
    if (b === 0xde || b === 0xdf) return this.map(this.uint(b === 0xde ? 2 : 4), depth);
    return this.opaque(b);
  }

  /** @param {number} n */
  int(n) {
    const at = this.need(n);
    const v = this.view;
    return n === 1 ? v.getInt8(at) : n === 2 ? v.getInt16(at) : n === 4 ? v.getInt32(at) : Number(v.getBigInt64(at));
  }

  // Binary data and extensions: skipped, read as null.
  /** @param {number} b */
  opaque(b) {
    if (b >= 0xc4 && b <= 0xc6) this.need(this.uint(1 << (b - 0xc4)));
    else if (b >= 0xd4 && b <= 0xd8) this.need((1 << (b - 0xd4)) + 1);
    else if (b >= 0xc7 && b <= 0xc9) this.need(this.uint(1 << (b - 0xc7)) + 1);
    else throw new RangeError('bad byte');
    return null;
  }

  /**
   * @param {number} n
   * @param {number} depth
   */
  list(n, depth) {
    if (n > this.bytes.length - this.i) throw new RangeError('long');
    const a = [];
    for (let k = 0; k < n; k++) a.push(this.value(depth + 1));
    return a;
  }

  /**
   * @param {number} n
   * @param {number} depth
   */
  map(n, depth) {
    if (n * 2 > this.bytes.length - this.i) throw new RangeError('long');
    /** @type {Record<string, unknown>} */
    const o = {};
    for (let k = 0; k < n; k++) {
      const key = this.value(depth + 1);
      o[String(key)] = this.value(depth + 1);
    }
    return o;
  }
}

/**
 * A CBOR value decoded whole (a map or an array at the top), as messagePack() does, or undefined.
 * @param {Uint8Array} bytes
 * @returns {unknown}
 */
export function cbor(bytes) {
  const top = bytes[0] >> 5;
  if (top !== 4 && top !== 5) return undefined;
  let i = 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (/** @type {number} */ n) => {
    if (i + n > bytes.length) throw new RangeError('short');
  };
  // The argument of an item: its length or value (-1: indefinite).
  const arg = (/** @type {number} */ info) => {
    if (info < 24) return info;
    if (info === 31) return -1;
    const n = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
    if (!n) throw new RangeError('bad info');
    need(n);
    const v = n === 1 ? view.getUint8(i) : n === 2 ? view.getUint16(i) : n === 4 ? view.getUint32(i) : Number(view.getBigUint64(i));
    i += n;
    return v;
  };
  /** @returns {unknown} */
  const read = (/** @type {number} */ depth) => {
    if (depth > DEPTH) throw new RangeError('deep');
    need(1);
    const b = bytes[i++];
    const major = b >> 5;
    const info = b & 31;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22 || info === 23) return null;
      if (info === 25) {
        need(2);
        i += 2;
        return 0;
      }
      if (info === 26) {
        need(4);
        i += 4;
        return view.getFloat32(i - 4);
      }
      if (info === 27) {
        need(8);
        i += 8;
        return view.getFloat64(i - 8);
      }
      if (info < 20) return info;
      throw new RangeError('break');
    }
    const n = arg(info);
    if (major === 0) return n;
    if (major === 1) return -1 - n;
    if (major === 6) return read(depth + 1); // a tag: its value
    if (major === 2 || major === 3) {
      if (n < 0) {
        // Indefinite: chunks until the break.
        let s = '';
        while (bytes[i] !== 0xff) {
          const part = read(depth + 1);
          if (typeof part === 'string') s += part;
          need(1);
        }
        i++;
        return major === 3 ? s : null;
      }
      need(n);
      const part = bytes.subarray(i, i + n);
      i += n;
      return major === 3 ? utf8.decode(part) : null;
    }
    if (major === 4) {
      const a = [];
      if (n < 0) {
        for (need(1); bytes[i] !== 0xff; need(1)) a.push(read(depth + 1));
        i++;
      } else {
        if (n > bytes.length - i) throw new RangeError('long');
        for (let k = 0; k < n; k++) a.push(read(depth + 1));
      }
      return a;
    }
    /** @type {Record<string, unknown>} */
    const o = {};
    if (n < 0) {
      for (need(1); bytes[i] !== 0xff; need(1)) {
        const key = read(depth + 1);
        o[String(key)] = read(depth + 1);
      }
      i++;
    } else {
      if (n * 2 > bytes.length - i) throw new RangeError('long');
      for (let k = 0; k < n; k++) {
        const key = read(depth + 1);
        o[String(key)] = read(depth + 1);
      }
    }
    return o;
  };
  try {
    const v = read(0);
    return i === bytes.length ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The runs of valid UTF-8 text in bytes that no decoder above reads (at least 2 characters, no
 * control characters but whitespace).
 * @param {Uint8Array} bytes
 */
export function utf8Runs(bytes) {
  const out = [];
  for (const run of utf8.decode(bytes).split(/[\uFFFD\u0000-\u0008\u000E-\u001F\u007F]+/)) if (run.length >= 2) out.push(run);
  return out;
}

/**
 * A binary value as the learner reads it: `{ value, via }` where `value` is what its decoder
 * gave (JSON, MessagePack or CBOR as plain values, protobuf as its fields) and `via` names the
 * decoder (`json`, `msgpack`, `cbor`, `protobuf`), or `{ runs }`: its UTF-8 runs.
 * @param {Uint8Array} bytes
 * @returns {{ value: unknown, via: string } | { runs: string[] }}
 */
export function binary(bytes) {
  const text = textOf(bytes);
  if (text !== null) {
    const t = text.trimStart();
    if (t[0] === '{' || t[0] === '[') {
      try {
        return { value: JSON.parse(t), via: 'json' };
      } catch {
        /* not JSON */
      }
    }
    return { runs: [text] };
  }
  const mp = messagePack(bytes);
  if (mp !== undefined) return { value: mp, via: 'msgpack' };
  const cb = cbor(bytes);
  if (cb !== undefined) return { value: cb, via: 'cbor' };
  const pb = protobuf(bytes);
  if (pb !== null) return { value: pb, via: 'protobuf' };
  return { runs: utf8Runs(bytes) };
}
