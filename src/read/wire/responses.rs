//! The OpenAI Responses API stream. Every event's data is an object with a `type` (the SSE
//! `event` field says the same): `response.output_text.delta` carries answer text,
//! `response.reasoning_summary_text.delta` and `response.reasoning_text.delta` reasoning,
//! `response.function_call_arguments.delta` tool calls. `response.completed`,
//! `response.incomplete` and `response.failed` end the stream with the response's usage (and,
//! for a failure, its error); there is no `[DONE]`. A top-level `error` event is an error.

use crate::prelude::*;

use super::{read_code, read_error, read_usage, read_vllm_metrics};
use super::{Bufs, ServerTimings, StreamError, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn event(
    kind: &str,
    data: &str,
    b: Bufs<'_>,
    emit: &mut dyn FnMut(Wire<'_>),
) -> Result<()> {
    let Bufs {
        answer: delta,
        reasoning: ty,
        scratch: reason,
        ..
    } = b;
    let mut usage = None;
    let mut timings = ServerTimings::default();
    let mut error: Option<StreamError> = None;
    let mut top = StreamError::default();
    let mut kind_buf = String::new();
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| match key {
        b"type" => sc.string_or_skip(ty).map(drop),
        b"delta" => sc.string_or_skip(delta).map(drop),
        b"code" => read_code(sc, &mut top.code),
        b"message" => sc.string_or_skip(&mut top.message).map(drop),
        b"response" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
            b"usage" if sc.peek() == Some(b'{') => {
                usage = Some(read_usage(sc)?);
                Ok(())
            }
            b"metrics" => {
                timings.merge(read_vllm_metrics(sc)?);
                Ok(())
            }
            b"error" => {
                error = read_error(sc, &mut kind_buf)?;
                Ok(())
            }
            b"incomplete_details" if sc.peek() == Some(b'{') => {
                sc.object(&mut |sc, key| match key {
                    b"reason" => sc.string_or_skip(reason).map(drop),
                    _ => sc.skip(),
                })
            }
            _ => sc.skip(),
        }),
        _ => sc.skip(),
    })?;
    sc.end()?;
    let t: &str = if ty.is_empty() { kind } else { ty };
    match t {
        "response.output_text.delta" if !delta.is_empty() => emit(Wire::Answer(delta)),
        "response.reasoning_summary_text.delta" | "response.reasoning_text.delta"
            if !delta.is_empty() =>
        {
            emit(Wire::Reasoning(delta))
        }
        "response.refusal.delta" if !delta.is_empty() => emit(Wire::Refusal(delta)),
        "response.function_call_arguments.delta" => emit(Wire::ToolCall),
        "response.completed" | "response.incomplete" | "response.failed" => {
            if let Some(u) = usage {
                emit(Wire::Usage(u));
            }
            if !timings.is_empty() {
                emit(Wire::Timings(timings));
            }
            match t {
                "response.completed" => emit(Wire::Finish("completed")),
                "response.incomplete" if !reason.is_empty() => emit(Wire::Finish(reason)),
                "response.incomplete" => emit(Wire::Finish("incomplete")),
                _ => emit(Wire::Error(error.unwrap_or_default().bounded())),
            }
            emit(Wire::Done);
        }
        "error" => emit(Wire::Error(top.bounded())),
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, Usage};

    fn rs(kind: &str, data: &str) -> Vec<Out> {
        read(Format::OpenAiResponses, kind, data)
    }

    #[test]
    fn text_and_reasoning_deltas() {
        assert_eq!(
            rs(
                "response.output_text.delta",
                r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel","sequence_number":4}"#
            ),
            vec![answer("Hel")]
        );
        assert_eq!(
            rs(
                "",
                r#"{"type":"response.reasoning_summary_text.delta","delta":"Thinking","summary_index":0}"#
            ),
            vec![Out::Reasoning("Thinking".into())]
        );
        assert_eq!(
            rs("", r#"{"type":"response.output_text.done","text":"Hello"}"#),
            vec![]
        );
        assert_eq!(
            rs(
                "",
                r#"{"type":"response.function_call_arguments.delta","delta":"{\""}"#
            ),
            vec![Out::ToolCall]
        );
    }

    #[test]
    fn the_terminal_events_carry_usage() {
        let usage = Usage {
            prompt_tokens: Some(36),
            completion_tokens: Some(87),
            reasoning_tokens: Some(0),
            cached_tokens: Some(0),
        };
        assert_eq!(
            rs(
                "",
                r#"{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},"output_tokens":87,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":123}}}"#
            ),
            vec![
                Out::Usage(usage),
                Out::Finish("completed".into()),
                Out::Done
            ]
        );
        assert_eq!(
            rs(
                "",
                r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":null}}"#
            ),
            vec![Out::Finish("max_output_tokens".into()), Out::Done]
        );
        assert_eq!(
            rs(
                "",
                r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"The model failed"}}}"#
            ),
            vec![
                Out::Error("server_error".into(), "The model failed".into()),
                Out::Done
            ]
        );
        assert_eq!(
            rs(
                "error",
                r#"{"type":"error","code":"ERR_SOMETHING","message":"Something happened","param":null}"#
            ),
            vec![Out::Error(
                "ERR_SOMETHING".into(),
                "Something happened".into()
            )]
        );
    }
}
