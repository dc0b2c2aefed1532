//! llama.cpp's native `/completion` stream: `content` per token; the last event has
//! `stop: true`, `tokens_predicted`, `tokens_evaluated`, `stop_type` and `timings` (prompt and
//! generation time). There is no `[DONE]`. Errors are `{"error": {"code", "message", "type"}}`.

use crate::prelude::*;

use super::{count, emit_end, read_error, read_llamacpp_timings, Bufs, ServerTimings, Usage, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn event(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    let Bufs {
        answer,
        reasoning,
        scratch: stop_type,
        ..
    } = b;
    let mut stop = false;
    let mut u = Usage::default();
    let mut t = ServerTimings::default();
    let mut error = None;
    let mut kind = String::new();
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| {
        match key {
            b"content" => drop(sc.string_or_skip(answer)?),
            b"reasoning_content" => drop(sc.string_or_skip(reasoning)?),
            b"stop" => stop = sc.bool_or_skip()? == Some(true),
            b"stop_type" => drop(sc.string_or_skip(stop_type)?),
            b"tokens_predicted" => u.completion_tokens = count(sc.number_or_skip()?),
            b"tokens_evaluated" => u.prompt_tokens = count(sc.number_or_skip()?),
            b"tokens_cached" => u.cached_tokens = count(sc.number_or_skip()?),
            b"timings" => {
                let (tt, tu) = read_llamacpp_timings(sc)?;
                t.merge(tt);
                u.cached_tokens = tu.cached_tokens.or(u.cached_tokens);
            }
            b"error" => error = read_error(sc, &mut kind)?,
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
    if let Some(e) = error {
        emit(Wire::Error(e.bounded()));
    }
    if stop {
        emit_end(u, t, stop_type, true, emit);
    } else if !t.is_empty() {
        // `timings_per_token`: each token's event carries the timings so far.
        emit(Wire::Timings(t));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, ServerTimings, Usage};

    fn ll(data: &str) -> Vec<Out> {
        read(Format::LlamaCpp, "", data)
    }

    #[test]
    fn tokens_and_the_last_event() {
        assert_eq!(
            ll(r#"{"content":" Paris","stop":false,"id_slot":0,"multimodal":false,"index":0}"#),
            vec![answer(" Paris")]
        );
        assert_eq!(
            ll(
                r#"{"content":"","id_slot":0,"stop":true,"model":"m.gguf","tokens_predicted":20,"tokens_evaluated":12,"generation_settings":{"n_predict":-1,"stop":[]},"prompt":"Q","has_new_line":false,"truncated":false,"stop_type":"eos","stopping_word":"","tokens_cached":31,"timings":{"cache_n":4,"prompt_n":12,"prompt_ms":35.2,"prompt_per_token_ms":2.9,"prompt_per_second":340.9,"predicted_n":20,"predicted_ms":250.1,"predicted_per_token_ms":12.5,"predicted_per_second":79.9}}"#
            ),
            vec![
                Out::Usage(Usage {
                    prompt_tokens: Some(12),
                    completion_tokens: Some(20),
                    cached_tokens: Some(4),
                    ..Usage::default()
                }),
                Out::Timings(ServerTimings {
                    prefill_ms: Some(35.2),
                    decode_ms: Some(250.1),
                    ..ServerTimings::default()
                }),
                Out::Finish("eos".into()),
                Out::Done
            ]
        );
        assert_eq!(
            ll(
                r#"{"error":{"code":500,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#
            ),
            vec![Out::Error(
                "500".into(),
                "the request exceeds the available context size".into()
            )]
        );
    }
}
