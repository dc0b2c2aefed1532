//! The Vercel AI SDK's two wire formats.
//!
//! The UI message stream (AI SDK 5+, header `x-vercel-ai-ui-message-stream: v1`) is SSE whose
//! data are parts: `text-delta` and `reasoning-delta` carry a `delta`, `tool-input-delta` is a
//! tool call, `error` has an `errorText`, `finish` ends the message, then `[DONE]`.
//!
//! The older data stream protocol (header `x-vercel-ai-data-stream: v1`) is lines `TYPE:JSON`:
//! `0` text, `g` reasoning, `3` an error string, `9`/`c` tool calls, `e`/`d` the finish with
//! `usage` (`promptTokens`, `completionTokens`); `d` ends the message.

use crate::prelude::*;

use super::{count, emit_end, Bufs, ServerTimings, StreamError, Usage, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn ui_event(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    if data.trim() == "[DONE]" {
        emit(Wire::Done);
        return Ok(());
    }
    let Bufs {
        answer: delta,
        reasoning: ty,
        scratch: text,
        ..
    } = b;
    let mut reason = String::new();
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| match key {
        b"type" => sc.string_or_skip(ty).map(drop),
        b"delta" | b"inputTextDelta" => sc.string_or_skip(delta).map(drop),
        b"errorText" => sc.string_or_skip(text).map(drop),
        b"finishReason" => sc.string_or_skip(&mut reason).map(drop),
        _ => sc.skip(),
    })?;
    sc.end()?;
    match ty.as_str() {
        "text-delta" if !delta.is_empty() => emit(Wire::Answer(delta)),
        "reasoning-delta" if !delta.is_empty() => emit(Wire::Reasoning(delta)),
        "tool-input-delta" => emit(Wire::ToolCall),
        "error" => emit(Wire::Error(
            StreamError {
                code: String::new(),
                message: core::mem::take(text),
            }
            .bounded(),
        )),
        "finish" if !reason.is_empty() => emit(Wire::Finish(&reason)),
        _ => {}
    }
    Ok(())
}

pub(super) fn data_line(line: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    let Some((code, json)) = line.split_once(':') else {
        return Err(crate::read::jsonscan::JsonError::Unexpected(0));
    };
    let Bufs {
        answer: text,
        reasoning: reason,
        scratch: _,
        ..
    } = b;
    let mut sc = Scanner::new(json);
    match code {
        "0" | "g" | "3" => {
            sc.string_into(text)?;
            sc.end()?;
            match code {
                "0" if !text.is_empty() => emit(Wire::Answer(text)),
                "g" if !text.is_empty() => emit(Wire::Reasoning(text)),
                "3" => emit(Wire::Error(
                    StreamError {
                        code: String::new(),
                        message: core::mem::take(text),
                    }
                    .bounded(),
                )),
                _ => {}
            }
        }
        "9" | "c" => {
            sc.skip()?;
            emit(Wire::ToolCall);
        }
        "e" | "d" => {
            let mut u = Usage::default();
            sc.object(&mut |sc, key| match key {
                b"finishReason" => sc.string_or_skip(reason).map(drop),
                b"usage" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| {
                    match key {
                        b"promptTokens" => u.prompt_tokens = count(sc.number_or_skip()?),
                        b"completionTokens" => u.completion_tokens = count(sc.number_or_skip()?),
                        _ => sc.skip()?,
                    }
                    Ok(())
                }),
                _ => sc.skip(),
            })?;
            sc.end()?;
            if code == "d" {
                emit_end(u, ServerTimings::default(), reason, true, emit);
            }
        }
        _ => {
            sc.skip()?;
            sc.end()?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, Usage};

    #[test]
    fn ui_message_stream_parts() {
        let ui = |d| read(Format::AiSdkUi, "message", d);
        assert_eq!(ui(r#"{"type":"start","messageId":"m1"}"#), vec![]);
        assert_eq!(
            ui(r#"{"type":"text-delta","id":"t1","delta":"Hi"}"#),
            vec![answer("Hi")]
        );
        assert_eq!(
            ui(r#"{"type":"reasoning-delta","id":"r1","delta":"so"}"#),
            vec![Out::Reasoning("so".into())]
        );
        assert_eq!(
            ui(r#"{"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"x"}"#),
            vec![Out::ToolCall]
        );
        assert_eq!(
            ui(r#"{"type":"error","errorText":"rate limited"}"#),
            vec![Out::Error("stream-error".into(), "rate limited".into())]
        );
        assert_eq!(
            ui(r#"{"type":"finish","finishReason":"stop"}"#),
            vec![Out::Finish("stop".into())]
        );
        assert_eq!(ui("[DONE]"), vec![Out::Done]);
    }

    #[test]
    fn data_stream_lines() {
        let ds = |d| read(Format::AiSdkData, "", d);
        assert_eq!(ds(r#"f:{"messageId":"msg-1"}"#), vec![]);
        assert_eq!(ds(r#"0:"Hello \"w\"""#), vec![answer("Hello \"w\"")]);
        assert_eq!(
            ds(r#"g:"thinking""#),
            vec![Out::Reasoning("thinking".into())]
        );
        assert_eq!(
            ds(r#"3:"An error occurred.""#),
            vec![Out::Error(
                "stream-error".into(),
                "An error occurred.".into()
            )]
        );
        assert_eq!(
            ds(
                r#"e:{"finishReason":"stop","usage":{"promptTokens":10,"completionTokens":20},"isContinued":false}"#
            ),
            vec![]
        );
        assert_eq!(
            ds(r#"d:{"finishReason":"stop","usage":{"promptTokens":10,"completionTokens":20}}"#),
            vec![
                Out::Usage(Usage {
                    prompt_tokens: Some(10),
                    completion_tokens: Some(20),
                    ..Usage::default()
                }),
                Out::Finish("stop".into()),
                Out::Done
            ]
        );
    }
}
