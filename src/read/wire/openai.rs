//! OpenAI chat completions streaming (`chat.completion.chunk`), as served by OpenAI, vLLM,
//! SGLang, llama.cpp's and Ollama's `/v1`, TGI's Messages API and most gateways.
//!
//! `choices[0].delta.content` is the answer; `reasoning_content` (vLLM, DeepSeek) and `reasoning`
//! (OpenRouter, Ollama) are reasoning; `tool_calls` elements are tool-call deltas. The usage
//! chunk has empty `choices`; `choices` may be `null`. llama.cpp adds `timings` and vLLM can add
//! `metrics` on the last chunk. `[DONE]` ends the stream. An `error` object (or vLLM's bare
//! `{"object":"error", …}`) is an error.

use crate::prelude::*;

use super::{read_code, read_error, read_llamacpp_timings, read_usage, read_vllm_metrics};
use super::{Bufs, ServerTimings, StreamError, Usage, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn event(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    // Every event but the last is an object: its first byte settles it without the trim.
    if data.as_bytes().first() != Some(&b'{') && data.trim() == "[DONE]" {
        emit(Wire::Done);
        return Ok(());
    }
    let Bufs {
        answer,
        reasoning,
        scratch: finish,
        more,
    } = b;
    // Choices other than the first that carried content (`n > 1`), by index; refusal text;
    // the `object` and a top-level error's fields (vLLM's bare `{"object":"error", …}`).
    let super::More {
        refusal,
        kind,
        top,
        others,
    } = more;
    refusal.clear();
    top.code.clear();
    top.message.clear();
    others.clear();
    let mut tools = 0u32;
    let mut usage: Option<Usage> = None;
    let mut timings = ServerTimings::default();
    let mut error: Option<StreamError> = None;
    let mut object_is_error = false;
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| match key {
        b"choices" if sc.peek() == Some(b'[') => sc.array(&mut |sc, _| {
            let bufs = (&mut *answer, &mut *reasoning, &mut *refusal);
            choice(sc, bufs, finish, &mut tools, others)
        }),
        b"usage" if sc.peek() == Some(b'{') => {
            let u = read_usage(sc)?;
            usage.get_or_insert_with(Usage::default).merge(u);
            Ok(())
        }
        b"timings" => {
            let (t, u) = read_llamacpp_timings(sc)?;
            timings.merge(t);
            usage.get_or_insert_with(Usage::default).merge(Usage {
                cached_tokens: u.cached_tokens,
                ..Usage::default()
            });
            Ok(())
        }
        b"metrics" => {
            timings.merge(read_vllm_metrics(sc)?);
            Ok(())
        }
        b"error" => {
            error = read_error(sc, kind)?;
            Ok(())
        }
        b"object" => {
            kind.clear();
            sc.string_or_skip(kind)?;
            object_is_error = kind == "error";
            Ok(())
        }
        b"message" => sc.string_or_skip(&mut top.message).map(drop),
        b"type" if top.code.is_empty() => sc.string_or_skip(&mut top.code).map(drop),
        b"code" => read_code(sc, &mut top.code),
        _ => sc.skip(),
    })?;
    sc.end()?;
    if !reasoning.is_empty() {
        emit(Wire::Reasoning(reasoning));
    }
    if !answer.is_empty() {
        emit(Wire::Answer(answer));
    }
    if !refusal.is_empty() {
        emit(Wire::Refusal(refusal));
    }
    for _ in 0..tools {
        emit(Wire::ToolCall);
    }
    for &i in others.iter() {
        emit(Wire::OtherChoice(i));
    }
    if let Some(u) = usage {
        emit(Wire::Usage(u));
    }
    if !timings.is_empty() {
        emit(Wire::Timings(timings));
    }
    if !finish.is_empty() {
        emit(Wire::Finish(finish));
    }
    if object_is_error && error.is_none() {
        error = Some(core::mem::take(top));
    }
    if let Some(e) = error {
        emit(Wire::Error(e.bounded()));
    }
    Ok(())
}

/// One element of `choices`. Only the first choice (index 0) is the answer a chat UI shows.
fn choice(
    sc: &mut Scanner<'_>,
    (answer, reasoning, refusal): (&mut String, &mut String, &mut String),
    finish: &mut String,
    tools: &mut u32,
    others: &mut Vec<u32>,
) -> Result<()> {
    if sc.peek() != Some(b'{') {
        return sc.skip();
    }
    let (a0, r0, f0, t0) = (answer.len(), reasoning.len(), finish.len(), *tools);
    let x0 = refusal.len();
    let mut index = None;
    sc.object(&mut |sc, key| match key {
        b"index" => {
            index = sc.number_or_skip()?;
            Ok(())
        }
        b"finish_reason" => sc.string_or_skip(finish).map(drop),
        b"delta" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
            b"content" => sc.string_or_skip(answer).map(drop),
            b"reasoning_content" | b"reasoning" => sc.string_or_skip(reasoning).map(drop),
            b"refusal" => sc.string_or_skip(refusal).map(drop),
            b"tool_calls" if sc.peek() == Some(b'[') => sc.array(&mut |sc, _| {
                *tools += 1;
                sc.skip()
            }),
            _ => sc.skip(),
        }),
        _ => sc.skip(),
    })?;
    if let Some(i) = index.filter(|&i| i != 0.0) {
        // Another choice's delta: counted for that choice, kept out of the answer.
        if answer.len() > a0 || reasoning.len() > r0 || refusal.len() > x0 {
            others.push(crate::float::clamp(i, 0.0, f64::from(u32::MAX)) as u32);
        }
        answer.truncate(a0);
        reasoning.truncate(r0);
        refusal.truncate(x0);
        finish.truncate(f0);
        *tools = t0;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, ServerTimings, Usage};
    use crate::read::jsonscan::JsonError;

    fn oa(data: &str) -> Vec<Out> {
        read(Format::OpenAiChat, "message", data)
    }

    #[test]
    fn content_deltas_are_answer_text() {
        assert_eq!(
            oa(
                r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi \"there\""},"finish_reason":null}]}"#
            ),
            vec![answer("Hi \"there\"")]
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
        assert_eq!(oa(r#"{"choices":null}"#), vec![]);
        assert_eq!(
            oa(r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#),
            vec![Out::Finish("stop".into())]
        );
    }

    #[test]
    fn reasoning_is_kept_apart() {
        assert_eq!(
            oa(r#"{"choices":[{"delta":{"reasoning_content":"think"}}]}"#),
            vec![Out::Reasoning("think".into())]
        );
        assert_eq!(
            oa(r#"{"choices":[{"delta":{"reasoning":"hmm","content":"A"}}]}"#),
            vec![Out::Reasoning("hmm".into()), answer("A")]
        );
    }

    #[test]
    fn only_the_first_choice_is_the_answer_and_the_others_are_counted_apart() {
        assert_eq!(
            oa(
                r#"{"choices":[{"delta":{"content":"x"},"index":1,"finish_reason":"length"},{"index":0,"delta":{"content":"y"}}]}"#
            ),
            vec![answer("y"), Out::OtherChoice(1)]
        );
    }

    #[test]
    fn tool_calls_are_counted() {
        assert_eq!(
            oa(
                r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}}]}"#
            ),
            vec![Out::ToolCall]
        );
    }

    #[test]
    fn usage_timings_and_metrics() {
        assert_eq!(
            oa(
                r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,"completion_tokens_details":{"reasoning_tokens":5},"prompt_tokens_details":{"cached_tokens":8}}}"#
            ),
            vec![Out::Usage(Usage {
                prompt_tokens: Some(12),
                completion_tokens: Some(34),
                reasoning_tokens: Some(5),
                cached_tokens: Some(8)
            })]
        );
        assert_eq!(
            oa(r#"{"choices":[{"delta":{"content":"a"}}],"usage":null}"#),
            vec![answer("a")]
        );
        assert_eq!(
            oa(
                r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4},"metrics":{"queue_time_ms":12.5,"time_to_first_token_ms":80,"generation_time_ms":400,"mean_itl_ms":20}}"#
            ),
            vec![
                Out::Usage(Usage {
                    prompt_tokens: Some(3),
                    completion_tokens: Some(4),
                    ..Usage::default()
                }),
                Out::Timings(ServerTimings {
                    queue_ms: Some(12.5),
                    ttft_ms: Some(80.0),
                    decode_ms: Some(400.0),
                    itl_ms: Some(20.0),
                    ..ServerTimings::default()
                })
            ]
        );
        // llama.cpp's OpenAI-compatible endpoint puts `timings` on the last chunk.
        assert_eq!(
            oa(
                r#"{"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"timings":{"cache_n":5,"prompt_n":7,"prompt_ms":30.5,"predicted_n":9,"predicted_ms":120}}"#
            ),
            vec![
                Out::Usage(Usage {
                    cached_tokens: Some(5),
                    ..Usage::default()
                }),
                Out::Timings(ServerTimings {
                    prefill_ms: Some(30.5),
                    decode_ms: Some(120.0),
                    ..ServerTimings::default()
                }),
                Out::Finish("stop".into())
            ]
        );
    }

    #[test]
    fn done_and_errors() {
        assert_eq!(oa("[DONE]"), vec![Out::Done]);
        assert_eq!(
            oa(
                r#"{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}"#
            ),
            vec![Out::Error(
                "rate_limit_exceeded".into(),
                "Rate limit".into()
            )]
        );
        assert_eq!(
            oa(r#"{"error":{"message":"Overloaded","type":"server_error","code":null}}"#),
            vec![Out::Error("server_error".into(), "Overloaded".into())]
        );
        assert_eq!(
            oa(r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#),
            vec![Out::Error("400".into(), "too long".into())]
        );
    }

    #[test]
    fn malformed_json_is_a_typed_error() {
        let mut a = super::super::Adapter::new();
        let r = a.event(
            Format::OpenAiChat,
            "message",
            r#"{"choices":[{"delta":{"content":"cut"#,
            &mut |_| {},
        );
        assert_eq!(r, Err(JsonError::UnexpectedEnd));
        assert!(a
            .event(Format::OpenAiChat, "message", "not json", &mut |_| {})
            .is_err());
    }
}
