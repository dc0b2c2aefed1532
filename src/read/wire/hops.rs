//! Where a buffering hop most likely is, from the response headers: a compressing hop
//! (`Content-Encoding`), a CDN (`CF-Ray`, `X-Cache`, `X-Served-By`, `X-Amz-Cf-Id`, `CDN-Loop`),
//! a proxy (`Via`, or a `Server` that names a proxy), or, when the `Server` header names
//! something else and nothing points at a hop, the server's own streaming layer. With none of
//! them (or headers hidden cross-origin) the place is unknown.
//!
//! Proxies such as nginx replace the upstream's `Server` header with their own by default, so a
//! `Server` header naming an application server means no rewriting proxy answered.

/// Where buffering most likely happened, and the header that says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferHint {
    /// `compression`, `cdn`, `proxy` or `server`.
    pub place: &'static str,
    /// The header that points there (lower case).
    pub header: &'static str,
    /// The response is compressed too (`Content-Encoding`): behind a proxy or CDN, the hop
    /// that holds the stream may be its compressor.
    pub compressed: bool,
}

const PROXIES: [&str; 12] = [
    "nginx",
    "openresty",
    "apache",
    "envoy",
    "istio",
    "caddy",
    "traefik",
    "haproxy",
    "varnish",
    "kong",
    "squid",
    "litespeed",
];
const CDNS: [&str; 5] = ["cloudflare", "cloudfront", "akamai", "fastly", "vercel"];
/// The headers that name a CDN: the last six of [`crate::read::HEADERS`].
pub const CDN_HEADERS: &[&str] = crate::read::HEADERS.split_at(9).1;

fn has(value: &str, needle: &str) -> bool {
    crate::find::contains(value.as_bytes(), needle.as_bytes())
}

/// Reads `name: value` lines (lower-case names).
pub fn buffering_hint(headers: &str) -> Option<BufferHint> {
    let mut proxy = None;
    let mut cdn = None;
    let mut server = None;
    let mut compressed = false;
    for line in headers.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim().to_ascii_lowercase());
        match name {
            "content-encoding" if !value.is_empty() && value != "identity" => compressed = true,
            "via" => proxy = proxy.or(Some("via")),
            "server" => {
                if CDNS.iter().any(|c| has(&value, c)) {
                    cdn = cdn.or(Some("server"));
                } else if PROXIES.iter().any(|p| has(&value, p)) {
                    proxy = proxy.or(Some("server"));
                } else if !value.is_empty() {
                    server = Some("server");
                }
            }
            _ => {
                if let Some(h) = CDN_HEADERS.iter().find(|h| **h == name) {
                    cdn = cdn.or(Some(*h));
                }
            }
        }
    }
    let hint = |place, header| {
        Some(BufferHint {
            place,
            header,
            compressed,
        })
    };
    // A hop that names itself is where the stream was held, compressed or not (nginx's gzip is
    // the common case); compression with no hop named is the server's own, or unknown's.
    match (cdn, proxy, server) {
        (Some(h), _, _) => hint("cdn", h),
        (None, Some(h), _) => hint("proxy", h),
        _ if compressed => hint("compression", "content-encoding"),
        (None, None, Some(h)) => hint("server", h),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(h: &str) -> Option<&'static str> {
        buffering_hint(h).map(|b| b.place)
    }

    #[test]
    fn each_hop_is_named_by_its_header() {
        // nginx compressing what it proxies: the proxy, which compresses.
        assert_eq!(
            place("content-encoding: gzip\nserver: nginx"),
            Some("proxy")
        );
        assert!(
            buffering_hint("content-encoding: gzip\nserver: nginx").is_some_and(|h| h.compressed)
        );
        assert_eq!(place("content-encoding: gzip\n"), Some("compression"));
        assert_eq!(
            place("content-encoding: br\nserver: uvicorn"),
            Some("compression")
        );
        assert_eq!(place("content-encoding: identity\n"), None);
        assert_eq!(place("server: nginx/1.22.1\n"), Some("proxy"));
        assert_eq!(place("via: 1.1 varnish\nserver: uvicorn"), Some("proxy"));
        assert_eq!(place("server: cloudflare\ncf-ray: 8a-LHR"), Some("cdn"));
        assert_eq!(place("x-cache: MISS\nserver: uvicorn"), Some("cdn"));
        // A direct connection to an application server (llama-cpp-python runs on uvicorn).
        assert_eq!(place("server: uvicorn\n"), Some("server"));
        assert_eq!(place("server: llama.cpp\n"), Some("server"));
        assert_eq!(place(""), None);
        assert_eq!(place("x-time-per-token: 20\n"), None);
    }
}
