//! Provider adapters: framed events in, answer deltas, reasoning deltas, usage and in-stream
//! errors out.
//!
//! - `openai-chat`: OpenAI chat completions (`choices[].delta.content`), the shape vLLM,
//!   llama.cpp, Ollama's `/v1`, TGI's Messages API and most gateways serve. Reasoning
//!   (`delta.reasoning_content`, `delta.reasoning`) is kept apart from the answer; tool-call
//!   deltas are counted apart; the usage chunk (empty `choices`) gives token counts; `[DONE]`
//!   ends the stream; an `error` object is a typed error.
//! - `sse-text`: any SSE stream whose event data is the token text.
//! - `text`: a plain chunked text body; every decoded piece is answer text.

use crate::jsonscan::{JsonError, Result, Scanner};

/// A stream format tokenpaint reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenAI chat completions over SSE.
    OpenAiChat,
    /// SSE whose data is the text.
    SseText,
    /// A plain text body.
    Text,
}

impl Format {
    /// The name reports use, and the `format` option accepts.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
            Format::SseText => "sse-text",
            Format::Text => "text",
        }
    }

    /// Parses a `format` option; `auto` and unknown names give `None` (detect).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "openai-chat" | "openai" => Some(Format::OpenAiChat),
            "sse-text" => Some(Format::SseText),
            "text" => Some(Format::Text),
            _ => None,
        }
    }

    /// Whether the format is framed as server-sent events.
    pub fn is_sse(self) -> bool {
        matches!(self, Format::OpenAiChat | Format::SseText)
    }
}

/// Token counts a server reported.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Prompt (input) tokens.
    pub prompt_tokens: Option<u64>,
    /// Completion (output) tokens, reasoning included where the provider counts it there.
    pub completion_tokens: Option<u64>,
    /// Reasoning tokens, when given apart.
    pub reasoning_tokens: Option<u64>,
}

/// The longest error message a report keeps, in characters.
pub const MAX_MESSAGE: usize = 200;

/// An error the server sent inside the stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamError {
    /// The provider's code or type, or `stream-error`.
    pub code: String,
    /// The message, cut to [`MAX_MESSAGE`] characters.
    pub message: String,
}

/// What an adapter found in one event.
#[derive(Debug, Clone, PartialEq)]
pub enum Wire<'a> {
    /// Answer text.
    Answer(&'a str),
    /// Reasoning ("thinking") text.
    Reasoning(&'a str),
    /// One tool-call delta.
    ToolCall,
    /// Token counts.
    Usage(Usage),
    /// An error sent in the stream.
    Error(StreamError),
    /// The end-of-stream marker (`[DONE]`).
    Done,
}

/// Reads events of one format. Owns scratch buffers reused from event to event.
#[derive(Debug, Default)]
pub struct Adapter {
    answer: String,
    reasoning: String,
}

impl Adapter {
    /// A fresh adapter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one SSE event's data in `format`.
    pub fn event(
        &mut self,
        format: Format,
        data: &str,
        emit: &mut dyn FnMut(Wire<'_>),
    ) -> Result<()> {
        match format {
            Format::OpenAiChat => self.openai_chat(data, emit),
            Format::SseText | Format::Text => {
                if data == "[DONE]" {
                    emit(Wire::Done);
                } else if !data.is_empty() {
                    emit(Wire::Answer(data));
                }
                Ok(())
            }
        }
    }

    fn openai_chat(&mut self, data: &str, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
        if data.trim() == "[DONE]" {
            emit(Wire::Done);
            return Ok(());
        }
        self.answer.clear();
        self.reasoning.clear();
        let (answer, reasoning) = (&mut self.answer, &mut self.reasoning);
        let mut tools = 0u32;
        let mut usage = None;
        let mut error: Option<StreamError> = None;
        let mut object_is_error = false;
        let mut top = StreamError::default();
        let mut sc = Scanner::new(data);
        sc.object(|sc, key| match key {
            b"choices" if sc.peek() == Some(b'[') => {
                sc.array(|sc, _| choice(sc, answer, reasoning, &mut tools))
            }
            b"usage" if sc.peek() == Some(b'{') => {
                usage = Some(read_usage(sc)?);
                Ok(())
            }
            b"error" => {
                error = read_error(sc)?;
                Ok(())
            }
            // vLLM and others also send a bare error object: {"object":"error","message":…}
            b"object" => {
                let mut v = String::new();
                sc.string_or_skip(&mut v)?;
                object_is_error = v == "error";
                Ok(())
            }
            b"message" => sc.string_or_skip(&mut top.message).map(drop),
            b"type" if top.code.is_empty() => sc.string_or_skip(&mut top.code).map(drop),
            b"code" => read_code(sc, &mut top.code),
            _ => sc.skip(),
        })?;
        sc.end()?;
        if !self.reasoning.is_empty() {
            emit(Wire::Reasoning(&self.reasoning));
        }
        if !self.answer.is_empty() {
            emit(Wire::Answer(&self.answer));
        }
        for _ in 0..tools {
            emit(Wire::ToolCall);
        }
        if let Some(u) = usage {
            emit(Wire::Usage(u));
        }
        if object_is_error && error.is_none() {
            error = Some(top);
        }
        if let Some(mut e) = error {
            bound(&mut e);
            emit(Wire::Error(e));
        }
        Ok(())
    }
}

/// One element of `choices`. Only the first choice (index 0) is the answer a chat UI shows.
fn choice(
    sc: &mut Scanner<'_>,
    answer: &mut String,
    reasoning: &mut String,
    tools: &mut u32,
) -> Result<()> {
    let (a0, r0, t0) = (answer.len(), reasoning.len(), *tools);
    let mut index = None;
    if sc.peek() != Some(b'{') {
        return sc.skip();
    }
    sc.object(|sc, key| match key {
        b"index" => {
            index = sc.number_or_skip()?;
            Ok(())
        }
        b"delta" if sc.peek() == Some(b'{') => sc.object(|sc, key| match key {
            b"content" => sc.string_or_skip(answer).map(drop),
            b"reasoning_content" | b"reasoning" => sc.string_or_skip(reasoning).map(drop),
            b"tool_calls" if sc.peek() == Some(b'[') => sc.array(|sc, _| {
                *tools += 1;
                sc.skip()
            }),
            _ => sc.skip(),
        }),
        _ => sc.skip(),
    })?;
    if index.is_some_and(|i| i != 0.0) {
        answer.truncate(a0);
        reasoning.truncate(r0);
        *tools = t0;
    }
    Ok(())
}

fn read_usage(sc: &mut Scanner<'_>) -> Result<Usage> {
    let mut u = Usage::default();
    let count = |v: Option<f64>| v.filter(|n| *n >= 0.0).map(|n| n as u64);
    sc.object(|sc, key| match key {
        b"prompt_tokens" | b"input_tokens" => {
            u.prompt_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        b"completion_tokens" | b"output_tokens" => {
            u.completion_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        b"completion_tokens_details" | b"output_tokens_details" if sc.peek() == Some(b'{') => sc
            .object(|sc, key| match key {
                b"reasoning_tokens" => {
                    u.reasoning_tokens = count(sc.number_or_skip()?);
                    Ok(())
                }
                _ => sc.skip(),
            }),
        _ => sc.skip(),
    })?;
    Ok(u)
}

fn read_code(sc: &mut Scanner<'_>, code: &mut String) -> Result<()> {
    match sc.peek() {
        Some(b'"') => {
            code.clear();
            sc.string_into(code)
        }
        Some(b'-' | b'0'..=b'9') => {
            let n = sc.number()?;
            code.clear();
            let mut w = crate::jsonwrite::JsonWriter::new();
            w.num(n);
            code.push_str(&w.finish());
            Ok(())
        }
        _ => sc.skip(),
    }
}

/// `"error": {...}` or `"error": "text"`; `null` is no error.
fn read_error(sc: &mut Scanner<'_>) -> Result<Option<StreamError>> {
    let mut e = StreamError::default();
    match sc.peek() {
        Some(b'{') => {
            let mut kind = String::new();
            sc.object(|sc, key| match key {
                b"message" => sc.string_or_skip(&mut e.message).map(drop),
                b"type" => sc.string_or_skip(&mut kind).map(drop),
                b"code" => read_code(sc, &mut e.code),
                _ => sc.skip(),
            })?;
            if e.code.is_empty() {
                e.code = kind;
            }
            Ok(Some(e))
        }
        Some(b'"') => {
            sc.string_into(&mut e.message)?;
            Ok(Some(e))
        }
        _ => sc.skip().map(|_| None),
    }
}

fn bound(e: &mut StreamError) {
    if e.code.is_empty() {
        e.code.push_str("stream-error");
    }
    for s in [&mut e.code, &mut e.message] {
        if let Some((i, _)) = s.char_indices().nth(MAX_MESSAGE) {
            s.truncate(i);
        }
    }
}

/// Picks the format from the first event's data of an SSE stream, when none was given.
pub fn detect_sse(data: &str) -> Option<Format> {
    let d = data.trim_start();
    if d.is_empty() || d == "[DONE]" {
        None // not enough to decide
    } else if d.starts_with('{') {
        Some(Format::OpenAiChat)
    } else {
        Some(Format::SseText)
    }
}

/// Whether the start of a body looks like an event stream (for servers that do not send
/// `text/event-stream`).
pub fn sniff_sse(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    [&b"data:"[..], b"event:", b":", b"id:", b"retry:"]
        .iter()
        .any(|p| head.starts_with(p))
}

/// Why an event could not be read, for the report.
pub fn error_code(e: JsonError) -> &'static str {
    e.code()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(format: Format, data: &str) -> (Vec<Wire<'static>>, Result<()>) {
        let mut a = Adapter::new();
        let mut out = Vec::new();
        let r = a.event(format, data, &mut |w| {
            out.push(match w {
                Wire::Answer(s) => Wire::Answer(Box::leak(s.to_string().into_boxed_str())),
                Wire::Reasoning(s) => Wire::Reasoning(Box::leak(s.to_string().into_boxed_str())),
                Wire::ToolCall => Wire::ToolCall,
                Wire::Usage(u) => Wire::Usage(u),
                Wire::Error(e) => Wire::Error(e),
                Wire::Done => Wire::Done,
            })
        });
        (out, r)
    }

    fn oa(data: &str) -> Vec<Wire<'static>> {
        let (w, r) = read(Format::OpenAiChat, data);
        r.unwrap();
        w
    }

    #[test]
    fn content_deltas_are_answer_text() {
        assert_eq!(
            oa(
                r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi \"there\""},"finish_reason":null}]}"#
            ),
            vec![Wire::Answer("Hi \"there\"")]
        );
    }

    #[test]
    fn role_only_empty_and_null_content_carry_no_answer() {
        assert_eq!(
            oa(r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#),
            vec![]
        );
        assert_eq!(
            oa(r#"{"choices":[{"index":0,"delta":{"content":null}}]}"#),
            vec![]
        );
        assert_eq!(
            oa(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
            vec![]
        );
        assert_eq!(oa(r#"{"choices":null}"#), vec![]);
    }

    #[test]
    fn reasoning_is_kept_apart() {
        assert_eq!(
            oa(r#"{"choices":[{"delta":{"reasoning_content":"think"}}]}"#),
            vec![Wire::Reasoning("think")]
        );
        assert_eq!(
            oa(r#"{"choices":[{"delta":{"reasoning":"hmm","content":"A"}}]}"#),
            vec![Wire::Reasoning("hmm"), Wire::Answer("A")]
        );
    }

    #[test]
    fn only_the_first_choice_counts() {
        assert_eq!(
            oa(
                r#"{"choices":[{"delta":{"content":"x"},"index":1},{"index":0,"delta":{"content":"y"}}]}"#
            ),
            vec![Wire::Answer("y")]
        );
    }

    #[test]
    fn tool_calls_are_counted() {
        assert_eq!(
            oa(
                r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}}]}"#
            ),
            vec![Wire::ToolCall]
        );
    }

    #[test]
    fn the_usage_chunk_gives_token_counts() {
        assert_eq!(
            oa(
                r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,"completion_tokens_details":{"reasoning_tokens":5}}}"#
            ),
            vec![Wire::Usage(Usage {
                prompt_tokens: Some(12),
                completion_tokens: Some(34),
                reasoning_tokens: Some(5)
            })]
        );
        assert_eq!(
            oa(r#"{"choices":[{"delta":{"content":"a"}}],"usage":null}"#),
            vec![Wire::Answer("a")]
        );
    }

    #[test]
    fn done_and_errors() {
        assert_eq!(oa("[DONE]"), vec![Wire::Done]);
        assert_eq!(
            oa(
                r#"{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}"#
            ),
            vec![Wire::Error(StreamError {
                code: "rate_limit_exceeded".into(),
                message: "Rate limit".into()
            })]
        );
        assert_eq!(
            oa(r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#),
            vec![Wire::Error(StreamError {
                code: "400".into(),
                message: "too long".into()
            })]
        );
        let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "é".repeat(500));
        match &oa(&long)[..] {
            [Wire::Error(e)] => assert_eq!(
                (e.code.as_str(), e.message.chars().count()),
                ("stream-error", MAX_MESSAGE)
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_json_is_a_typed_error() {
        let (w, r) = read(
            Format::OpenAiChat,
            r#"{"choices":[{"delta":{"content":"cut"#,
        );
        assert_eq!((w, r), (vec![], Err(JsonError::UnexpectedEnd)));
        assert!(read(Format::OpenAiChat, "not json").1.is_err());
    }

    #[test]
    fn sse_text_data_is_the_text() {
        assert_eq!(read(Format::SseText, "tok").0, vec![Wire::Answer("tok")]);
        assert_eq!(read(Format::SseText, "[DONE]").0, vec![Wire::Done]);
    }

    #[test]
    fn detection() {
        assert_eq!(detect_sse(r#" {"choices":[]}"#), Some(Format::OpenAiChat));
        assert_eq!(detect_sse("Hello"), Some(Format::SseText));
        assert_eq!(detect_sse("[DONE]"), None);
        assert!(sniff_sse(b"data: x") && sniff_sse(b"\xEF\xBB\xBF: hi") && !sniff_sse(b"Hello"));
        assert_eq!(Format::from_name("auto"), None);
        assert_eq!(
            Format::from_name("openai-chat").map(Format::name),
            Some("openai-chat")
        );
    }
}
