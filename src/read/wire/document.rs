//! A JSON document instead of a stream: an HTTP error body, or an answer sent whole
//! (`stream: false`). An `error` is an error; an OpenAI chat completion's
//! `choices[0].message.content` is the answer, arriving all at once; `usage` is usage.

use super::{read_error, read_usage, Bufs, Wire};
use crate::read::jsonscan::{Result, Scanner};

pub(super) fn read(data: &str, b: Bufs<'_>, emit: &mut dyn FnMut(Wire<'_>)) -> Result<()> {
    let Bufs {
        answer,
        reasoning,
        scratch: kind,
        ..
    } = b;
    let mut usage = None;
    let mut error = None;
    let mut sc = Scanner::new(data);
    if sc.peek() != Some(b'{') {
        return Ok(()); // not an object: nothing to say about it
    }
    sc.object(&mut |sc, key| match key {
        b"error" => {
            error = read_error(sc, kind)?;
            Ok(())
        }
        b"usage" if sc.peek() == Some(b'{') => {
            usage = Some(read_usage(sc)?);
            Ok(())
        }
        b"choices" if sc.peek() == Some(b'[') => sc.array(&mut |sc, i| {
            if i > 0 || sc.peek() != Some(b'{') {
                return sc.skip();
            }
            sc.object(&mut |sc, key| match key {
                b"message" if sc.peek() == Some(b'{') => sc.object(&mut |sc, key| match key {
                    b"content" => sc.string_or_skip(answer).map(drop),
                    b"reasoning_content" | b"reasoning" => sc.string_or_skip(reasoning).map(drop),
                    _ => sc.skip(),
                }),
                _ => sc.skip(),
            })
        }),
        _ => sc.skip(),
    })?;
    if !reasoning.is_empty() {
        emit(Wire::Reasoning(reasoning));
    }
    if !answer.is_empty() {
        emit(Wire::Answer(answer));
    }
    if let Some(u) = usage {
        emit(Wire::Usage(u));
    }
    if let Some(e) = error {
        emit(Wire::Error(e.bounded()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Format, Usage};

    #[test]
    fn error_bodies_and_whole_answers() {
        assert_eq!(
            read(
                Format::Json,
                "",
                r#"{"error":{"message":"Invalid API key","type":"invalid_request_error","code":"invalid_api_key"}}"#
            ),
            vec![Out::Error(
                "invalid_api_key".into(),
                "Invalid API key".into()
            )]
        );
        assert_eq!(
            read(
                Format::Json,
                "",
                r#"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Whole."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#
            ),
            vec![
                answer("Whole."),
                Out::Usage(Usage {
                    prompt_tokens: Some(5),
                    completion_tokens: Some(2),
                    ..Usage::default()
                })
            ]
        );
        assert_eq!(read(Format::Json, "", "[1,2]"), vec![]);
    }
}
