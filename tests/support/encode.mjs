// Encoders for the generated protocols of tests/native/learn.test.mjs: values as MessagePack, CBOR
// and protobuf bytes, written here from the formats' specifications (not with tokenpaint's
// decoders, which they test). Objects with string keys, arrays, strings, integers, booleans, null.

const utf8 = new TextEncoder();

const be = (n, bytes) => {
  const out = [];
  for (let i = bytes - 1; i >= 0; i--) out.push(Math.floor(n / 2 ** (8 * i)) & 0xff);
  return out;
};

/** MessagePack (msgpack.org spec). */
export function messagePack(v) {
  const out = [];
  const put = (x) => {
    if (x === null || x === undefined) out.push(0xc0);
    else if (x === true) out.push(0xc3);
    else if (x === false) out.push(0xc2);
    else if (typeof x === 'number') {
      if (Number.isInteger(x) && x >= 0 && x < 128) out.push(x);
      else if (Number.isInteger(x) && x >= 0 && x < 2 ** 32) out.push(0xce, ...be(x, 4));
      else {
        const b = new DataView(new ArrayBuffer(8));
        b.setFloat64(0, x);
        out.push(0xcb, ...new Uint8Array(b.buffer));
      }
    } else if (typeof x === 'string') {
      const b = utf8.encode(x);
      if (b.length < 32) out.push(0xa0 | b.length);
      else if (b.length < 256) out.push(0xd9, b.length);
      else if (b.length < 65536) out.push(0xda, ...be(b.length, 2));
      else out.push(0xdb, ...be(b.length, 4));
      out.push(...b);
    } else if (Array.isArray(x)) {
      if (x.length < 16) out.push(0x90 | x.length);
      else out.push(0xdc, ...be(x.length, 2));
      x.forEach(put);
    } else {
      const keys = Object.keys(x);
      if (keys.length < 16) out.push(0x80 | keys.length);
      else out.push(0xde, ...be(keys.length, 2));
      for (const k of keys) {
        put(k);
        put(x[k]);
      }
    }
  };
  put(v);
  return Uint8Array.from(out);
}

/** CBOR (RFC 8949), definite lengths. */
export function cbor(v) {
  const out = [];
  const head = (major, n) => {
    if (n < 24) out.push((major << 5) | n);
    else if (n < 256) out.push((major << 5) | 24, n);
    else if (n < 65536) out.push((major << 5) | 25, ...be(n, 2));
    else out.push((major << 5) | 26, ...be(n, 4));
  };
  const put = (x) => {
    if (x === null || x === undefined) out.push(0xf6);
    else if (x === true) out.push(0xf5);
    else if (x === false) out.push(0xf4);
    else if (typeof x === 'number' && Number.isInteger(x) && x >= 0) head(0, x);
    else if (typeof x === 'number') {
      const b = new DataView(new ArrayBuffer(8));
      b.setFloat64(0, x);
      out.push(0xfb, ...new Uint8Array(b.buffer));
    } else if (typeof x === 'string') {
      const b = utf8.encode(x);
      head(3, b.length);
      out.push(...b);
    } else if (Array.isArray(x)) {
      head(4, x.length);
      x.forEach(put);
    } else {
      const keys = Object.keys(x);
      head(5, keys.length);
      for (const k of keys) {
        put(k);
        put(x[k]);
      }
    }
  };
  put(v);
  return Uint8Array.from(out);
}

/**
 * Protobuf (the wire format of protobuf.dev/programming-guides/encoding): `fields` is a list of
 * `[number, value]`, each value a string (length-delimited), an integer (varint), or a nested
 * list of fields (a message).
 */
export function protobuf(fields) {
  const out = [];
  const varint = (n) => {
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
  };
  for (const [num, v] of fields) {
    if (typeof v === 'number') {
      varint(num * 8);
      varint(v);
      continue;
    }
    const b = typeof v === 'string' ? utf8.encode(v) : protobuf(v);
    varint(num * 8 + 2);
    varint(b.length);
    out.push(...b);
  }
  return Uint8Array.from(out);
}

/** Base64 of bytes. */
export const base64 = (bytes) => Buffer.from(bytes).toString('base64');
