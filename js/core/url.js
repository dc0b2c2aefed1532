// The URL of a request: in full, to find its Resource Timing entry (never put in a report), and
// as reports name it, without query string or fragment (which may carry keys or tokens).

/**
 * @param {RequestInfo | URL | undefined} input
 * @param {Response | null} [res]
 */
function raw(input, res) {
  let u = (res && res.url) || '';
  if (!u && input !== undefined && input !== null) u = typeof input === 'string' ? input : ('url' in input && input.url) || String(input);
  return u;
}

const base = () => (globalThis.location ? globalThis.location.href : undefined);

/**
 * The request URL in full.
 * @param {RequestInfo | URL | undefined} input
 * @param {Response | null} [res]
 */
export function fullUrlOf(input, res) {
  const u = raw(input, res);
  try {
    return new URL(u, base()).href;
  } catch {
    return u;
  }
}

/**
 * The request URL as a report names it: origin and path.
 * @param {RequestInfo | URL | undefined} input
 * @param {Response | null} [res]
 */
export function urlOf(input, res) {
  const u = raw(input, res);
  try {
    const parsed = new URL(u, base());
    return parsed.origin + parsed.pathname;
  } catch {
    return String(u).split(/[?#]/)[0];
  }
}
