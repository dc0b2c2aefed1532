//! Hugging Face TGI's `/generate_stream`: each event has a `token` (`text`, `special`); special
//! tokens (`</s>`, `<|eot_id|>`) are not answer text. The last event also has `generated_text`
//! and `details` (`finish_reason`, `generated_tokens`). Errors are `{"error", "error_type"}`.

use crate::prelude::*;

use super::{count, emit_end, Bufs, ServerTimings, StreamError, Usage, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn event(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    let Bufs {
        answer: text,
        reasoning: _,
        scratch: reason,
        ..
    } = b;
    let mut special = false;
    let mut last = false;
    let mut u = Usage::default();
    let mut error: Option<StreamError> = None;
    let mut error_type = String::new();
    let mut sc = Scanner::new(data);
    sc.object(&mut |sc, key| {
        match key {
            b"token" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| {
                match key {
                    b"text" => drop(sc.string_or_skip(text)?),
                    b"special" => special = sc.bool_or_skip()? == Some(true),
                    _ => sc.skip()?,
                }
                Ok(())
            })?,
            b"generated_text" => {
                last = !sc.is_null();
                sc.skip()?;
            }
            b"details" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
                b"finish_reason" => sc.string_or_skip(reason).map(drop),
                b"generated_tokens" => {
                    u.completion_tokens = count(sc.number_or_skip()?);
                    Ok(())
                }
                _ => sc.skip(),
            })?,
            b"error" => {
                let mut e = StreamError::default();
                if sc.string_or_skip(&mut e.message)? {
                    error = Some(e);
                }
            }
            b"error_type" => drop(sc.string_or_skip(&mut error_type)?),
            _ => sc.skip()?,
        }
        Ok(())
    })?;
    sc.end()?;
    if !special && !text.is_empty() {
        emit(Wire::Answer(text));
    }
    if let Some(mut e) = error {
        e.code = error_type;
        emit(Wire::Error(e.bounded()));
    }
    emit_end(u, ServerTimings::default(), reason, last, emit);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, Usage};

    fn tgi(data: &str) -> Vec<Out> {
        read(Format::Tgi, "", data)
    }

    #[test]
    fn tokens_special_tokens_and_the_last_event() {
        assert_eq!(
            tgi(
                r#"{"index":1,"token":{"id":578,"text":" The","logprob":-0.41,"special":false},"generated_text":null,"details":null,"top_tokens":null}"#
            ),
            vec![answer(" The")]
        );
        assert_eq!(
            tgi(
                r#"{"index":20,"token":{"id":2,"text":"</s>","logprob":-0.1,"special":true},"generated_text":"The answer","details":{"finish_reason":"eos_token","generated_tokens":20,"seed":null}}"#
            ),
            vec![
                Out::Usage(Usage {
                    completion_tokens: Some(20),
                    ..Usage::default()
                }),
                Out::Finish("eos_token".into()),
                Out::Done
            ]
        );
        assert_eq!(
            tgi(
                r#"{"error":"Input validation error: `inputs` must have less than 4096 tokens","error_type":"validation"}"#
            ),
            vec![Out::Error(
                "validation".into(),
                "Input validation error: `inputs` must have less than 4096 tokens".into()
            )]
        );
    }
}
