//! Reading bytes: decoding and framing the body, and reading each provider's events.

// The byte-level readers live in the crate tokenpaint-scan (crates/scan), compiled for speed.
pub use tokenpaint_scan::{jsonscan, lines, sse, utf8};
pub mod events;
pub mod servertiming;
pub mod wire;

/// Every response header the core reads, lower case: format detection (the AI SDK's), server
/// timings (Server-Timing, TGI's), and where a buffering hop is ([`wire::hops`]). The shell
/// passes these as `name: value` lines and no other (`js/schema.js` is generated from this
/// list by `scripts/schema.mjs`).
pub const HEADERS: [&str; 15] = [
    "x-vercel-ai-ui-message-stream",
    "x-vercel-ai-data-stream",
    "server-timing",
    "x-queue-time",
    "x-inference-time",
    "x-time-per-token",
    "content-encoding",
    "via",
    "server",
    // The CDN's (wire::hops::CDN_HEADERS).
    "cf-ray",
    "x-cache",
    "x-served-by",
    "x-amz-cf-id",
    "cdn-loop",
    "x-vercel-id",
];

#[cfg(test)]
mod tests {
    use super::wire::detect::{sniff_framing, Detected};
    use super::wire::hops::{buffering_hint, CDN_HEADERS};
    use super::*;

    #[test]
    fn every_header_listed_is_read_and_every_header_read_is_listed() {
        for h in HEADERS {
            let value = match h {
                "server-timing" => "decode;dur=5",
                "content-encoding" => "gzip",
                "via" => "1.1 varnish",
                "server" => "nginx",
                _ => "12",
            };
            let line = format!("{h}: {value}");
            let read = !matches!(
                sniff_framing("text/event-stream", &line),
                Detected::Framing(_)
            ) || servertiming::tgi_headers(&line).queue_ms.is_some()
                || servertiming::tgi_headers(&line).total_ms.is_some()
                || servertiming::tgi_headers(&line).itl_ms.is_some()
                || (h == "server-timing" && servertiming::timings(value).decode_ms.is_some())
                || buffering_hint(&line).is_some();
            assert!(read, "{h} is listed but no reader reads it");
        }
        assert_eq!(CDN_HEADERS[0], "cf-ray");
        assert_eq!(CDN_HEADERS.len(), 6);
    }
}
