// Where reports that a left page could not send wait for the origin's next page: the stand-in
// (exporter.js) keeps them, the exporter chunk (otlp.js) takes them. A leaf module, so that
// neither imports the other.
export const UNSENT = 'tokenpaint:otlp-unsent';
