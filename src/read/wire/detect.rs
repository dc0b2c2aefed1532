//! Picking the format when none was given: from the content type and headers first, then from
//! the shape of the first event.

use crate::prelude::*;

use super::{Format, Framing};
use crate::read::jsonscan::Scanner;

/// What the response headers say about framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// The format is known.
    Format(Format),
    /// The framing is known; the first event decides the format.
    Framing(Framing),
    /// Look at the first bytes.
    Sniff,
}

/// Decides from the content type and the headers (`name: value` lines, names lower-case).
pub fn sniff_framing(content_type: &str, headers: &str) -> Detected {
    let ct = content_type.to_ascii_lowercase();
    let has = |name: &str| {
        headers
            .lines()
            .any(|l| l.split(':').next().map(str::trim) == Some(name))
    };
    if has("x-vercel-ai-ui-message-stream") {
        return Detected::Format(Format::AiSdkUi);
    }
    if has("x-vercel-ai-data-stream") {
        return Detected::Format(Format::AiSdkData);
    }
    let contains = |needle: &str| crate::find::contains(ct.as_bytes(), needle.as_bytes());
    if contains("text/event-stream") {
        Detected::Framing(Framing::Sse)
    } else if contains("ndjson") || contains("jsonl") || contains("json-seq") {
        Detected::Framing(Framing::Lines)
    } else if contains("json") {
        Detected::Format(Format::Json)
    } else {
        Detected::Sniff
    }
}

/// Decides framing from the first bytes of a body whose headers did not say.
pub fn sniff_bytes(head: &[u8]) -> Framing {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let head = &head[start..];
    if [&b"data:"[..], b"event:", b":", b"id:", b"retry:"]
        .iter()
        .any(|p| head.starts_with(p))
    {
        Framing::Sse
    } else if head.starts_with(b"{") {
        Framing::Lines
    } else {
        Framing::Text
    }
}

/// The format of an event (SSE type and data, or a line), or `None` if it does not tell.
pub fn detect_event(framing: Framing, kind: &str, data: &str) -> Option<Format> {
    let d = data.trim_start();
    if d.is_empty() || d == "[DONE]" {
        return None;
    }
    if !d.starts_with('{') {
        return match framing {
            Framing::Sse => Some(Format::SseText),
            _ => Some(Format::Unknown),
        };
    }
    let shape = Shape::of(d)?;
    let ty = shape.ty.as_str();
    let event_type = if ty.is_empty() { kind } else { ty };
    if shape.choices || shape.object.starts_with("chat.completion") {
        Some(Format::OpenAiChat)
    } else if event_type.starts_with("response.") {
        Some(Format::OpenAiResponses)
    } else if ANTHROPIC.contains(&event_type) && !(event_type == "error" && shape.error_text) {
        Some(Format::Anthropic)
    } else if AI_SDK_UI.contains(&event_type)
        || event_type.starts_with("tool-")
        || event_type.starts_with("data-")
        || shape.error_text
    {
        Some(Format::AiSdkUi)
    } else if shape.token {
        Some(Format::Tgi)
    } else if shape.model && shape.done && (shape.response || shape.message) {
        Some(Format::Ollama)
    } else if shape.content && shape.stop {
        Some(Format::LlamaCpp)
    } else {
        None
    }
}

const ANTHROPIC: [&str; 8] = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

const AI_SDK_UI: [&str; 14] = [
    "start",
    "start-step",
    "finish-step",
    "finish",
    "text-start",
    "text-delta",
    "text-end",
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "source-url",
    "source-document",
    "file",
    "message-metadata",
];

/// The top-level keys of an event that tell formats apart.
#[derive(Default)]
struct Shape {
    ty: String,
    object: String,
    choices: bool,
    token: bool,
    model: bool,
    done: bool,
    response: bool,
    message: bool,
    content: bool,
    stop: bool,
    error_text: bool,
}

impl Shape {
    fn of(data: &str) -> Option<Shape> {
        let mut s = Shape::default();
        let mut sc = Scanner::new(data);
        sc.object(&mut |sc, key| {
            match key {
                b"type" => drop(sc.string_or_skip(&mut s.ty)?),
                b"object" => drop(sc.string_or_skip(&mut s.object)?),
                _ => {
                    let flag = match key {
                        b"choices" => &mut s.choices,
                        b"token" => &mut s.token,
                        b"model" => &mut s.model,
                        b"done" => &mut s.done,
                        b"response" => &mut s.response,
                        b"message" => &mut s.message,
                        b"content" => &mut s.content,
                        b"stop" => &mut s.stop,
                        b"errorText" => &mut s.error_text,
                        _ => return sc.skip(),
                    };
                    *flag = true;
                    sc.skip()?;
                }
            }
            Ok(())
        })
        .ok()?;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_decide_first() {
        assert_eq!(
            sniff_framing("text/event-stream; charset=utf-8", ""),
            Detected::Framing(Framing::Sse)
        );
        assert_eq!(
            sniff_framing("text/plain", "x-vercel-ai-data-stream: v1\n"),
            Detected::Format(Format::AiSdkData)
        );
        assert_eq!(
            sniff_framing("text/event-stream", "x-vercel-ai-ui-message-stream: v1"),
            Detected::Format(Format::AiSdkUi)
        );
        assert_eq!(
            sniff_framing("application/x-ndjson", ""),
            Detected::Framing(Framing::Lines)
        );
        assert_eq!(
            sniff_framing("application/json", ""),
            Detected::Format(Format::Json)
        );
        assert_eq!(sniff_framing("", ""), Detected::Sniff);
        assert_eq!(sniff_bytes(b"\xEF\xBB\xBFdata: x"), Framing::Sse);
        assert_eq!(sniff_bytes(b"\n{\"model\":1}"), Framing::Lines);
        assert_eq!(sniff_bytes(b"Hello"), Framing::Text);
    }

    #[test]
    fn events_tell_their_format() {
        let sse = |k, d| detect_event(Framing::Sse, k, d);
        assert_eq!(
            sse("message", r#"{"id":"x","choices":[]}"#),
            Some(Format::OpenAiChat)
        );
        assert_eq!(
            sse(
                "response.created",
                r#"{"type":"response.created","response":{}}"#
            ),
            Some(Format::OpenAiResponses)
        );
        assert_eq!(
            sse("message_start", r#"{"type":"message_start","message":{}}"#),
            Some(Format::Anthropic)
        );
        assert_eq!(
            sse("message", r#"{"type":"start","messageId":"m"}"#),
            Some(Format::AiSdkUi)
        );
        assert_eq!(
            sse("message", r#"{"type":"error","errorText":"x"}"#),
            Some(Format::AiSdkUi)
        );
        assert_eq!(
            sse("message", r#"{"index":1,"token":{"text":"a"}}"#),
            Some(Format::Tgi)
        );
        assert_eq!(
            sse("message", r#"{"content":"a","stop":false}"#),
            Some(Format::LlamaCpp)
        );
        assert_eq!(sse("message", "plain words"), Some(Format::SseText));
        assert_eq!(sse("message", "[DONE]"), None);
        assert_eq!(sse("message", r#"{"something":"else"}"#), None);
        let line = |d| detect_event(Framing::Lines, "", d);
        assert_eq!(
            line(r#"{"model":"m","created_at":"t","response":"a","done":false}"#),
            Some(Format::Ollama)
        );
        assert_eq!(
            line(r#"{"model":"m","created_at":"t","message":{"content":"a"},"done":false}"#),
            Some(Format::Ollama)
        );
        assert_eq!(line("not json"), Some(Format::Unknown));
    }
}
