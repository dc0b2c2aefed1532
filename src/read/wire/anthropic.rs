//! Anthropic Messages streaming. `message_start` carries the input usage; `content_block_delta`
//! carries `text_delta` (answer), `thinking_delta` (reasoning) or `input_json_delta` (tool
//! call); `message_delta` carries the stop reason and the output token count; `message_stop`
//! ends the stream; `ping` is a keep-alive; `error` is an error.

use crate::prelude::*;

use super::{count, read_error, Bufs, Usage, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn event(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    let Bufs {
        answer: text,
        reasoning: thinking,
        scratch: ty,
        ..
    } = b;
    let mut delta_type = String::new();
    let mut stop = String::new();
    let mut usage: Option<Usage> = None;
    let mut error = None;
    let mut kind = String::new();
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| match key {
        b"type" => sc.string_or_skip(ty).map(drop),
        b"delta" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
            b"type" => sc.string_or_skip(&mut delta_type).map(drop),
            b"text" => sc.string_or_skip(text).map(drop),
            b"thinking" => sc.string_or_skip(thinking).map(drop),
            b"stop_reason" => sc.string_or_skip(&mut stop).map(drop),
            _ => sc.skip(),
        }),
        b"usage" if sc.peek() == Some(b'{') => {
            usage = Some(read_anthropic_usage(sc)?);
            Ok(())
        }
        b"message" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
            b"usage" if sc.peek() == Some(b'{') => {
                usage = Some(read_anthropic_usage(sc)?);
                Ok(())
            }
            _ => sc.skip(),
        }),
        b"error" => {
            error = read_error(sc, &mut kind)?;
            Ok(())
        }
        _ => sc.skip(),
    })?;
    sc.end()?;
    match ty.as_str() {
        "content_block_delta" => match delta_type.as_str() {
            "text_delta" if !text.is_empty() => emit(Wire::Answer(text)),
            "thinking_delta" if !thinking.is_empty() => emit(Wire::Reasoning(thinking)),
            "input_json_delta" => emit(Wire::ToolCall),
            _ => {}
        },
        "message_start" => {
            // The output count at the start is a placeholder; message_delta gives the real one.
            if let Some(u) = usage {
                emit(Wire::Usage(Usage {
                    completion_tokens: None,
                    ..u
                }));
            }
        }
        "message_delta" => {
            if let Some(u) = usage {
                emit(Wire::Usage(u));
            }
            if !stop.is_empty() {
                emit(Wire::Finish(&stop));
            }
        }
        "message_stop" => emit(Wire::Done),
        "error" => emit(Wire::Error(error.unwrap_or_default().bounded())),
        _ => {}
    }
    Ok(())
}

fn read_anthropic_usage(sc: &mut Scanner<'_>) -> Result<Usage> {
    let mut u = Usage::default();
    sc.object(&mut |sc, key| match key {
        b"input_tokens" => {
            u.prompt_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        b"output_tokens" => {
            u.completion_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        b"cache_read_input_tokens" => {
            u.cached_tokens = count(sc.number_or_skip()?);
            Ok(())
        }
        _ => sc.skip(),
    })?;
    Ok(u)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, Usage};

    fn an(data: &str) -> Vec<Out> {
        read(Format::Anthropic, "", data)
    }

    #[test]
    fn messages_events() {
        assert_eq!(
            an(
                r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":25,"cache_read_input_tokens":5,"output_tokens":1}}}"#
            ),
            vec![Out::Usage(Usage {
                prompt_tokens: Some(25),
                cached_tokens: Some(5),
                ..Usage::default()
            })]
        );
        assert_eq!(
            an(
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
            ),
            vec![]
        );
        assert_eq!(an(r#"{"type": "ping"}"#), vec![]);
        assert_eq!(
            an(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#
            ),
            vec![answer("Hello")]
        );
        assert_eq!(
            an(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}"#
            ),
            vec![Out::Reasoning("Let me".into())]
        );
        assert_eq!(
            an(
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}"#
            ),
            vec![]
        );
        assert_eq!(
            an(
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}"#
            ),
            vec![Out::ToolCall]
        );
        assert_eq!(
            an(
                r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}"#
            ),
            vec![
                Out::Usage(Usage {
                    completion_tokens: Some(15),
                    ..Usage::default()
                }),
                Out::Finish("end_turn".into())
            ]
        );
        assert_eq!(an(r#"{"type":"message_stop"}"#), vec![Out::Done]);
        assert_eq!(
            an(
                r#"{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}"#
            ),
            vec![Out::Error("overloaded_error".into(), "Overloaded".into())]
        );
    }
}
