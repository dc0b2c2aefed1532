//! Ollama's native NDJSON streams: `/api/generate` (`response`, `thinking`) and `/api/chat`
//! (`message.content`, `message.thinking`, `message.tool_calls`). The last object has
//! `done: true`, the token counts and the durations in nanoseconds; `{"error": …}` is an error.

use super::{count, emit_end, Bufs, ServerTimings, StreamError, Usage, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn event(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    let Bufs {
        answer,
        reasoning,
        scratch: reason,
        ..
    } = b;
    let mut done = false;
    let mut tools = 0u32;
    let mut u = Usage::default();
    let mut t = ServerTimings::default();
    let mut error = None;
    let ms = |ns: Option<f64>| ns.map(|v| v / 1e6);
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| {
        match key {
            b"response" => drop(sc.string_or_skip(answer)?),
            b"thinking" => drop(sc.string_or_skip(reasoning)?),
            b"message" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
                b"content" => sc.string_or_skip(answer).map(drop),
                b"thinking" => sc.string_or_skip(reasoning).map(drop),
                b"tool_calls" if sc.peek() == Some(b'[') => sc.array(&mut |sc, _| {
                    tools += 1;
                    sc.skip()
                }),
                _ => sc.skip(),
            })?,
            b"done" => done = sc.bool_or_skip()? == Some(true),
            b"done_reason" => drop(sc.string_or_skip(reason)?),
            b"prompt_eval_count" => u.prompt_tokens = count(sc.number_or_skip()?),
            b"eval_count" => u.completion_tokens = count(sc.number_or_skip()?),
            b"total_duration" => t.total_ms = ms(sc.number_or_skip()?),
            b"load_duration" => t.load_ms = ms(sc.number_or_skip()?),
            b"prompt_eval_duration" => t.prefill_ms = ms(sc.number_or_skip()?),
            b"eval_duration" => t.decode_ms = ms(sc.number_or_skip()?),
            b"error" => {
                let mut e = StreamError::default();
                if sc.string_or_skip(&mut e.message)? {
                    error = Some(e);
                }
            }
            _ => sc.skip()?,
        }
        Ok(())
    })?;
    sc.end()?;
    if !reasoning.is_empty() {
        emit(Wire::Reasoning(reasoning));
    }
    if !answer.is_empty() {
        emit(Wire::Answer(answer));
    }
    for _ in 0..tools {
        emit(Wire::ToolCall);
    }
    if let Some(e) = error {
        emit(Wire::Error(e.bounded()));
    }
    if done {
        emit_end(u, t, reason, true, emit);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, ServerTimings, Usage};

    fn ol(data: &str) -> Vec<Out> {
        read(Format::Ollama, "", data)
    }

    #[test]
    fn generate_and_chat_lines() {
        assert_eq!(
            ol(
                r#"{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","response":"The","done":false}"#
            ),
            vec![answer("The")]
        );
        assert_eq!(
            ol(r#"{"model":"qwen3","created_at":"x","response":"","thinking":"Hmm","done":false}"#),
            vec![Out::Reasoning("Hmm".into())]
        );
        assert_eq!(
            ol(
                r#"{"model":"llama3.2","created_at":"x","message":{"role":"assistant","content":" sky","thinking":""},"done":false}"#
            ),
            vec![answer(" sky")]
        );
        assert_eq!(
            ol(
                r#"{"model":"llama3.2","created_at":"x","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{}}}]},"done":false}"#
            ),
            vec![Out::ToolCall]
        );
    }

    #[test]
    fn the_final_object_gives_counts_and_durations_in_ms() {
        assert_eq!(
            ol(
                r#"{"model":"llama3.2","created_at":"x","response":"","done":true,"done_reason":"stop","context":[1,2,3],"total_duration":10706818083,"load_duration":6338219291,"prompt_eval_count":26,"prompt_eval_duration":130079000,"eval_count":259,"eval_duration":4232710000}"#
            ),
            vec![
                Out::Usage(Usage {
                    prompt_tokens: Some(26),
                    completion_tokens: Some(259),
                    ..Usage::default()
                }),
                Out::Timings(ServerTimings {
                    total_ms: Some(10706.818083),
                    load_ms: Some(6338.219291),
                    prefill_ms: Some(130.079),
                    decode_ms: Some(4232.71),
                    ..ServerTimings::default()
                }),
                Out::Finish("stop".into()),
                Out::Done
            ]
        );
        assert_eq!(
            ol(r#"{"error":"model 'x' not found"}"#),
            vec![Out::Error(
                "stream-error".into(),
                "model 'x' not found".into()
            )]
        );
    }
}
