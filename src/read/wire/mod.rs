//! Provider adapters: framed events in; answer deltas, reasoning deltas, tool-call deltas, usage,
//! server timings, finish reasons and in-stream errors out.
//!
//! One file per provider's wire format. Each adapter walks only the fields it needs with the
//! [`Scanner`] and emits [`Wire`] items through a callback. Detection
//! ([`detect_event`]) reads the first event's shape when no format was given.

use crate::prelude::*;

mod aisdk;
mod anthropic;
pub mod detect;
mod document;
pub mod hops;
mod llamacpp;
mod ollama;
mod openai;
mod responses;
mod tgi;

pub use detect::{detect_event, sniff_framing, Detected};
pub use hops::{buffering_hint, BufferHint};

use crate::read::jsonscan::{Result, Scanner};

/// A stream format tokenpaint reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenAI chat completions (`choices[].delta`), also vLLM, SGLang, llama.cpp's and Ollama's
    /// `/v1`, TGI's Messages API and most gateways.
    OpenAiChat,
    /// The OpenAI Responses API (`response.output_text.delta`, …).
    OpenAiResponses,
    /// Anthropic Messages (`content_block_delta`, …).
    Anthropic,
    /// Ollama's native NDJSON (`/api/generate`, `/api/chat`).
    Ollama,
    /// TGI's `/generate_stream`.
    Tgi,
    /// llama.cpp's native `/completion`.
    LlamaCpp,
    /// The Vercel AI SDK UI message stream (SSE, `text-delta` parts).
    AiSdkUi,
    /// The Vercel AI SDK data stream protocol (`0:"text"` lines).
    AiSdkData,
    /// SSE whose event data is the text.
    SseText,
    /// A plain text body.
    Text,
    /// A JSON document (not a stream): an error body, or a non-streamed answer.
    Json,
    /// JSON events of a shape tokenpaint does not know.
    Unknown,
}

/// How a format's bytes are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-sent events.
    Sse,
    /// Newline-delimited lines.
    Lines,
    /// Plain text.
    Text,
    /// One JSON document, read whole.
    Document,
}

impl Format {
    /// Every format, for the `format` option and for tests.
    pub const ALL: [Format; 12] = [
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Ollama,
        Format::Tgi,
        Format::LlamaCpp,
        Format::AiSdkUi,
        Format::AiSdkData,
        Format::SseText,
        Format::Text,
        Format::Json,
        Format::Unknown,
    ];

    /// The name reports use, and the `format` option accepts.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Ollama => "ollama",
            Format::Tgi => "tgi",
            Format::LlamaCpp => "llamacpp",
            Format::AiSdkUi => "ai-sdk-ui",
            Format::AiSdkData => "ai-sdk-data",
            Format::SseText => "sse-text",
            Format::Text => "text",
            Format::Json => "json",
            Format::Unknown => "unknown",
        }
    }

    /// Parses a `format` option; `auto` and unknown names give `None` (detect).
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "openai" => Some(Format::OpenAiChat),
            "auto" | "unknown" => None,
            _ => Format::ALL.into_iter().find(|f| f.name() == name),
        }
    }

    /// How the format is framed.
    pub fn framing(self) -> Framing {
        match self {
            Format::Ollama | Format::AiSdkData => Framing::Lines,
            Format::Text => Framing::Text,
            Format::Json => Framing::Document,
            _ => Framing::Sse,
        }
    }
}

/// Token counts a server reported. Fields a message leaves out stay as they were.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Prompt (input) tokens.
    pub prompt_tokens: Option<u64>,
    /// Completion (output) tokens, reasoning included where the provider counts it there.
    pub completion_tokens: Option<u64>,
    /// Reasoning tokens, when given apart.
    pub reasoning_tokens: Option<u64>,
    /// Prompt tokens served from a prefix cache.
    pub cached_tokens: Option<u64>,
}

impl Usage {
    /// Takes the fields `newer` has, keeps the others.
    pub fn merge(&mut self, newer: Usage) {
        self.prompt_tokens = newer.prompt_tokens.or(self.prompt_tokens);
        self.completion_tokens = newer.completion_tokens.or(self.completion_tokens);
        self.reasoning_tokens = newer.reasoning_tokens.or(self.reasoning_tokens);
        self.cached_tokens = newer.cached_tokens.or(self.cached_tokens);
    }
}

/// Timings a server reported in the stream body, in ms. What a server does not say stays
/// `None`: unknown, never zero.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ServerTimings {
    /// Time waiting in the server's queue (vLLM `queue_time_ms`).
    pub queue_ms: Option<f64>,
    /// The server's own time to first token, from scheduling (vLLM `time_to_first_token_ms`).
    pub ttft_ms: Option<f64>,
    /// Prompt processing (llama.cpp `prompt_ms`, Ollama `prompt_eval_duration`).
    pub prefill_ms: Option<f64>,
    /// Token generation (llama.cpp `predicted_ms`, Ollama `eval_duration`, vLLM
    /// `generation_time_ms`).
    pub decode_ms: Option<f64>,
    /// Mean inter-token latency (vLLM `mean_itl_ms`).
    pub itl_ms: Option<f64>,
    /// Model loading (Ollama `load_duration`).
    pub load_ms: Option<f64>,
    /// The whole request on the server (Ollama `total_duration`).
    pub total_ms: Option<f64>,
}

impl ServerTimings {
    /// Takes the fields `newer` has, keeps the others.
    pub fn merge(&mut self, newer: ServerTimings) {
        self.queue_ms = newer.queue_ms.or(self.queue_ms);
        self.ttft_ms = newer.ttft_ms.or(self.ttft_ms);
        self.prefill_ms = newer.prefill_ms.or(self.prefill_ms);
        self.decode_ms = newer.decode_ms.or(self.decode_ms);
        self.itl_ms = newer.itl_ms.or(self.itl_ms);
        self.load_ms = newer.load_ms.or(self.load_ms);
        self.total_ms = newer.total_ms.or(self.total_ms);
    }

    /// Whether anything is known.
    pub fn is_empty(&self) -> bool {
        *self == ServerTimings::default()
    }
}

/// The longest error message or code a report keeps, in characters.
pub const MAX_MESSAGE: usize = 200;

/// An error the server sent inside the stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamError {
    /// The provider's code or type, or `stream-error`.
    pub code: String,
    /// The message, cut to [`MAX_MESSAGE`] characters.
    pub message: String,
}

impl StreamError {
    /// Fills a missing code and cuts both fields to [`MAX_MESSAGE`] characters.
    pub fn bounded(mut self) -> Self {
        if self.code.is_empty() {
            self.code.push_str("stream-error");
        }
        for s in [&mut self.code, &mut self.message] {
            if let Some((i, _)) = s.char_indices().nth(MAX_MESSAGE) {
                s.truncate(i);
            }
        }
        self
    }
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
    /// Refusal text (OpenAI `delta.refusal`, `response.refusal.delta`): shown to the user in
    /// place of an answer, so it is timed like one, and counted apart.
    Refusal(&'a str),
    /// Content (answer or reasoning) of a choice other than the first (`n > 1`): counted,
    /// never shown as the answer. Carries the choice's index.
    OtherChoice(u32),
    /// Token counts.
    Usage(Usage),
    /// Timings the server measured.
    Timings(ServerTimings),
    /// Why generation stopped (`stop`, `length`, `end_turn`, …).
    Finish(&'a str),
    /// An error sent in the stream.
    Error(StreamError),
    /// The end-of-stream marker (`[DONE]`, `message_stop`, `done: true`, …).
    Done,
}

/// Reads events. Owns scratch buffers reused from event to event.
#[derive(Debug, Default)]
pub struct Adapter {
    answer: String,
    reasoning: String,
    scratch: String,
    more: More,
}

/// OpenAI chat's buffers beside [`Bufs`]': kept between events, so that its rare fields cost
/// no allocation, nor a drop, per event.
#[derive(Debug, Default)]
pub(crate) struct More {
    pub refusal: String,
    pub kind: String,
    pub top: StreamError,
    pub others: Vec<u32>,
}

/// Scratch buffers lent to one adapter call.
pub(crate) struct Bufs<'b> {
    pub answer: &'b mut String,
    pub reasoning: &'b mut String,
    pub scratch: &'b mut String,
    pub more: &'b mut More,
}

impl Adapter {
    /// A fresh adapter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads one event in `format`: an SSE event (`kind` is its event type) or a line.
    pub fn event(
        &mut self,
        format: Format,
        kind: &str,
        data: &str,
        emit: &mut dyn FnMut(Wire<'_>),
    ) -> Result<()> {
        self.answer.clear();
        self.reasoning.clear();
        self.scratch.clear();
        let b = Bufs {
            answer: &mut self.answer,
            reasoning: &mut self.reasoning,
            scratch: &mut self.scratch,
            more: &mut self.more,
        };
        // `npm run size:floor`'s one-format build reads OpenAI chat and text alone (see
        // Cargo.toml): the other readers are left for the linker to drop.
        if cfg!(feature = "floor-one-format")
            && !matches!(
                format,
                Format::OpenAiChat | Format::SseText | Format::Text | Format::Unknown
            )
        {
            return Ok(());
        }
        match format {
            Format::OpenAiChat => openai::event(data, b, emit),
            Format::OpenAiResponses => responses::event(kind, data, b, emit),
            Format::Anthropic => anthropic::event(data, b, emit),
            Format::Ollama => ollama::event(data, b, emit),
            Format::Tgi => tgi::event(data, b, emit),
            Format::LlamaCpp => llamacpp::event(data, b, emit),
            Format::AiSdkUi => aisdk::ui_event(data, b, emit),
            Format::AiSdkData => aisdk::data_line(data, b, emit),
            Format::Json => document::read(data, b, emit),
            Format::SseText | Format::Text => {
                if data == "[DONE]" {
                    emit(Wire::Done);
                } else if !data.is_empty() {
                    emit(Wire::Answer(data));
                }
                Ok(())
            }
            Format::Unknown => generic_error(data, b, emit),
        }
    }
}

/// For events of no known format: an `error` field is still an error.
fn generic_error(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    if data.trim() == "[DONE]" {
        emit(Wire::Done);
        return Ok(());
    }
    let mut err = None;
    let mut sc = Scanner::new(data);
    if sc.peek() != Some(b'{') {
        return Ok(());
    }
    sc.object(&mut |sc, key| match key {
        b"error" => {
            err = read_error(sc, b.scratch)?;
            Ok(())
        }
        _ => sc.skip(),
    })?;
    if let Some(e) = err {
        emit(Wire::Error(e.bounded()));
    }
    Ok(())
}

// Helpers shared by the adapters.

/// A non-negative count.
/// Emits what a stream's last event carries, in the order the session expects:
/// usage, server timings, finish reason, then the end marker when `done`.
/// Empty parts are left out.
pub(crate) fn emit_end(
    u: Usage,
    t: ServerTimings,
    finish: &str,
    done: bool,
    emit: &mut dyn FnMut(Wire<'_>),
) {
    if u != Usage::default() {
        emit(Wire::Usage(u));
    }
    if !t.is_empty() {
        emit(Wire::Timings(t));
    }
    if !finish.is_empty() {
        emit(Wire::Finish(finish));
    }
    if done {
        emit(Wire::Done);
    }
}

pub(crate) fn count(v: Option<f64>) -> Option<u64> {
    v.filter(|n| *n >= 0.0).map(|n| n as u64)
}

/// A `code` that may be a string or a number, into `out`.
pub(crate) fn read_code(sc: &mut Scanner<'_>, out: &mut String) -> Result<()> {
    match sc.peek() {
        Some(b'"') => {
            out.clear();
            sc.string_into(out)
        }
        Some(b'-' | b'0'..=b'9') => {
            let n = sc.number()?;
            out.clear();
            let mut w = crate::jsonwrite::JsonWriter::new();
            w.num(n);
            out.push_str(&w.finish());
            Ok(())
        }
        _ => sc.skip(),
    }
}

/// `"error": {"message", "type", "code"}` or `"error": "text"`; `null` is no error.
pub(crate) fn read_error(sc: &mut Scanner<'_>, kind: &mut String) -> Result<Option<StreamError>> {
    let mut e = StreamError::default();
    match sc.peek() {
        Some(b'{') => {
            kind.clear();
            sc.object(&mut |sc, key| match key {
                b"message" => sc.string_or_skip(&mut e.message).map(drop),
                b"type" => sc.string_or_skip(kind).map(drop),
                b"code" => read_code(sc, &mut e.code),
                _ => sc.skip(),
            })?;
            if e.code.is_empty() {
                e.code.push_str(kind);
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

/// The usage object of OpenAI chat and Responses (`prompt_tokens`/`input_tokens`, …).
pub(crate) fn read_usage(sc: &mut Scanner<'_>) -> Result<Usage> {
    let mut u = Usage::default();
    sc.object(&mut |sc, key| match key {
        b"prompt_tokens" | b"input_tokens" => {
            u.prompt_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        b"completion_tokens" | b"output_tokens" => {
            u.completion_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        b"completion_tokens_details" | b"output_tokens_details" if sc.peek() == Some(b'{') => sc
            .object(&mut |sc, key| match key {
                b"reasoning_tokens" => {
                    u.reasoning_tokens = count(sc.number_or_skip()?);
                    Ok(())
                }
                _ => sc.skip(),
            }),
        b"prompt_tokens_details" | b"input_tokens_details" if sc.peek() == Some(b'{') => {
            sc.object(&mut |sc, key| match key {
                b"cached_tokens" => {
                    u.cached_tokens = count(sc.number_or_skip()?);
                    Ok(())
                }
                _ => sc.skip(),
            })
        }
        _ => sc.skip(),
    })?;
    Ok(u)
}

/// vLLM's per-request `metrics` object.
pub(crate) fn read_vllm_metrics(sc: &mut Scanner<'_>) -> Result<ServerTimings> {
    let mut t = ServerTimings::default();
    if sc.peek() != Some(b'{') {
        sc.skip()?;
        return Ok(t);
    }
    sc.object(&mut |sc, key| {
        let slot = match key {
            b"queue_time_ms" => &mut t.queue_ms,
            b"time_to_first_token_ms" => &mut t.ttft_ms,
            b"generation_time_ms" => &mut t.decode_ms,
            b"mean_itl_ms" => &mut t.itl_ms,
            _ => return sc.skip(),
        };
        *slot = sc.number_or_skip()?;
        Ok(())
    })?;
    Ok(t)
}

/// llama.cpp's `timings` object; also gives prompt and cached token counts.
pub(crate) fn read_llamacpp_timings(sc: &mut Scanner<'_>) -> Result<(ServerTimings, Usage)> {
    let mut t = ServerTimings::default();
    let mut u = Usage::default();
    if sc.peek() != Some(b'{') {
        sc.skip()?;
        return Ok((t, u));
    }
    sc.object(&mut |sc, key| {
        match key {
            b"prompt_ms" => t.prefill_ms = sc.number_or_skip()?,
            b"predicted_ms" => t.decode_ms = sc.number_or_skip()?,
            b"prompt_n" => u.prompt_tokens = count(sc.number_or_skip()?),
            b"predicted_n" => u.completion_tokens = count(sc.number_or_skip()?),
            b"cache_n" => u.cached_tokens = count(sc.number_or_skip()?),
            _ => sc.skip()?,
        }
        Ok(())
    })?;
    Ok((t, u))
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// What an adapter emitted, owned, for comparisons.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Out {
        Answer(String),
        Reasoning(String),
        ToolCall,
        Refusal(String),
        OtherChoice(u32),
        Usage(Usage),
        Timings(ServerTimings),
        Finish(String),
        Error(String, String),
        Done,
    }

    pub fn own(w: Wire<'_>) -> Out {
        match w {
            Wire::Answer(s) => Out::Answer(s.into()),
            Wire::Reasoning(s) => Out::Reasoning(s.into()),
            Wire::ToolCall => Out::ToolCall,
            Wire::Refusal(s) => Out::Refusal(s.into()),
            Wire::OtherChoice(i) => Out::OtherChoice(i),
            Wire::Usage(u) => Out::Usage(u),
            Wire::Timings(t) => Out::Timings(t),
            Wire::Finish(s) => Out::Finish(s.into()),
            Wire::Error(e) => Out::Error(e.code, e.message),
            Wire::Done => Out::Done,
        }
    }

    pub fn read(format: Format, kind: &str, data: &str) -> Vec<Out> {
        let mut a = Adapter::new();
        let mut out = Vec::new();
        a.event(format, kind, data, &mut |w| out.push(own(w)))
            .unwrap_or_else(|e| panic!("{data}: {e:?}"));
        out
    }

    pub fn answer(s: &str) -> Out {
        Out::Answer(s.into())
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            if f != Format::Unknown {
                assert_eq!(Format::from_name(f.name()), Some(f));
            }
        }
        assert_eq!(Format::from_name("auto"), None);
        assert_eq!(Format::from_name("openai"), Some(Format::OpenAiChat));
    }

    #[test]
    fn sse_text_and_unknown() {
        assert_eq!(read(Format::SseText, "message", "tok"), vec![answer("tok")]);
        assert_eq!(read(Format::SseText, "message", "[DONE]"), vec![Out::Done]);
        assert_eq!(read(Format::Unknown, "message", r#"{"x":1}"#), vec![]);
        assert_eq!(
            read(Format::Unknown, "message", r#"{"error":"boom"}"#),
            vec![Out::Error("stream-error".into(), "boom".into())]
        );
    }

    /// An adapter keeps buffers from event to event (the answer's, OpenAI chat's refusal,
    /// `object` and error fields): what it reads from an event never depends on the events
    /// before it.
    #[test]
    fn an_event_reads_the_same_after_any_other() {
        let events: [(Format, &str, &str); 14] = [
            (
                Format::OpenAiChat,
                "",
                r#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"choices":[{"index":0,"delta":{"refusal":"No."}}]}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"choices":[{"index":0,"delta":{"content":"a","refusal":"b","reasoning_content":"c"},"finish_reason":"stop"}]}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"choices":[{"index":1,"delta":{"content":"x"}},{"index":2,"delta":{"refusal":"y"}}]}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"object":"error","message":"m"}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"error":{"message":"boom","type":"server_error"}}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"type":"t","code":"c","choices":[]}"#,
            ),
            (
                Format::OpenAiChat,
                "",
                r#"{"choices":[{"index":0,"delta":{"tool_calls":[{},{}]}}],"usage":{"prompt_tokens":3}}"#,
            ),
            (Format::OpenAiChat, "", " [DONE] "),
            (
                Format::Anthropic,
                "",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"A"}}"#,
            ),
            (
                Format::Ollama,
                "",
                r#"{"message":{"content":"o"},"done":true,"done_reason":"stop","eval_count":2}"#,
            ),
            (
                Format::OpenAiResponses,
                "response.output_text.delta",
                r#"{"type":"response.output_text.delta","delta":"r"}"#,
            ),
            (Format::Unknown, "", r#"{"error":"boom"}"#),
        ];
        let fresh: Vec<Vec<Out>> = events.iter().map(|&(f, k, d)| read(f, k, d)).collect();
        for before in &events {
            for (i, &(f, k, d)) in events.iter().enumerate() {
                let mut a = Adapter::new();
                let _ = a.event(before.0, before.1, before.2, &mut |_| {});
                let mut out = Vec::new();
                a.event(f, k, d, &mut |w| out.push(own(w))).unwrap();
                assert_eq!(out, fresh[i], "{d} after {}", before.2);
            }
        }
    }

    #[test]
    fn errors_are_bounded() {
        let e = StreamError {
            code: String::new(),
            message: "é".repeat(500),
        }
        .bounded();
        assert_eq!(
            (e.code.as_str(), e.message.chars().count()),
            ("stream-error", MAX_MESSAGE)
        );
    }
}
