// The model a request asks for, read by the shell (profiler.js) and the OpenTelemetry chunk
// (otel.js) alike.

/**
 * The `model` of a JSON request body, if it has one (gen_ai.request.model).
 * @param {unknown} body
 */
export function modelOf(body) {
  if (typeof body !== 'string' || body.length > 1 << 20 || body[0] !== '{') return null;
  try {
    const m = JSON.parse(body).model;
    return typeof m === 'string' ? m.slice(0, 200) : null;
  } catch {
    return null;
  }
}
