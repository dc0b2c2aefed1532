// Whether a page's Content-Security-Policy lets the page's own world compile WebAssembly (what
// tokenpaint's core is): `script-src` (or `default-src` without it) must allow
// 'wasm-unsafe-eval' or 'unsafe-eval'. The extension does not try and fail there: a failed
// compile is a violation the page would see (a console error, a `securitypolicyviolation`
// event, a report to the page's own endpoint).

/**
 * Why `policy` (one Content-Security-Policy header value; several headers all apply) forbids
 * WebAssembly in the page, or null when it does not.
 */
export function forbidsWasm(policy) {
  const directives = new Map();
  for (const part of String(policy).split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name && !directives.has(name.toLowerCase())) directives.set(name.toLowerCase(), values);
  }
  const which = directives.has('script-src') ? 'script-src' : directives.has('default-src') ? 'default-src' : null;
  if (!which) return null;
  if (directives.get(which).some((v) => /^'(?:wasm-unsafe-eval|unsafe-eval)'$/i.test(v))) return null;
  return `the page's Content-Security-Policy (${which}) does not allow WebAssembly: it has no 'wasm-unsafe-eval'`;
}
