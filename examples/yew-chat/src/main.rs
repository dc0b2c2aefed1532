//! A Yew chat page that streams an answer from an OpenAI-compatible server (the demo server's
//! simulated one), renders it as it arrives, and shows tokenpaint's headline figures of each
//! answer, read from the typed report.
//!
//! The tokenpaint part is a few lines in `Chat`: a profiler, and in one `use_effect_with((), ..)`
//! (run once the list is in the DOM) `observe` on the message list, `on_report` and
//! `on_progress`, whose guards the effect's cleanup drops when the component unmounts; and
//! `profiler.fetch` (in `chat_kit::stream`).
//!
//! For the tests, the page also records its own truth (when its reader got each delta, and when
//! Yew had written the text that shows it: effects run after the render is in the DOM) and exposes
//! the hooks of `chat_kit::expose`.
use std::cell::Cell;

use chat_kit::Headline;
use tokenpaint::types::Progress;
use tokenpaint::web::{Options, Profiler};
use yew::prelude::*;

thread_local! {
    /// One profiler for the page, made when the page starts.
    static PROFILER: Profiler = Profiler::new(&Options { label: Some("yew".into()), ..Options::default() });
}

fn profiler() -> Profiler {
    PROFILER.with(Profiler::clone)
}

#[derive(Properties, PartialEq)]
struct ChatProps {
    answer: AttrValue,
}

#[function_component(Chat)]
fn chat(props: &ChatProps) -> Html {
    let list = use_node_ref();
    let headline = use_state(|| None::<Headline>);
    let live = use_state(|| None::<(Option<i64>, u64)>);
    {
        // tokenpaint: watch the message list, the answer as it streams, and each report, for as
        // long as this is mounted. The cleanup drops the guards: unobserve, unsubscribe.
        let (list, headline, live) = (list.clone(), headline.setter(), live.setter());
        use_effect_with((), move |()| {
            let guards = list.cast::<web_sys::Element>().map(|el| {
                let p = profiler();
                let watching = p.observe(&el);
                let reports = p.on_report(move |r| {
                    headline.set(Some(Headline::of(r)));
                    chat_kit::keep_for_tests("typedReports", r);
                });
                let progress = p.on_progress(move |x: &Progress| {
                    live.set(Some((x.backlog, x.arrived)));
                    chat_kit::keep_for_tests("typedProgress", x);
                });
                (watching, reports, progress)
            });
            chat_kit::ready();
            move || drop(guards)
        });
    }
    // The app's truth: Yew runs effects once the render is in the DOM.
    use_effect_with(props.answer.len(), |len| chat_kit::committed(*len));

    html! {
        <>
            <div class="messages" ref={list}>
                <p class="user">{"Explain streaming latency."}</p>
                <p class="answer">{props.answer.clone()}</p>
            </div>
            <p id="live">
                {live.map(|(backlog, arrived)| chat_kit::live_line(backlog, arrived))}
            </p>
            <dl id="headline">
                {match &*headline {
                    None => html! { <><dt>{"report"}</dt><dd>{"waiting for an answer"}</dd></> },
                    Some(h) => html! {
                        <>
                            <dt>{"TTFT (network)"}</dt><dd id="ttft">{h.ttft.clone()}</dd>
                            <dt>{"TTFT (perceived)"}</dt><dd id="ttft-perceived">{h.ttft_perceived.clone()}</dd>
                            <dt>{"lag p50"}</dt><dd id="lag">{h.lag_p50.clone()}</dd>
                            <dt>{"matched"}</dt><dd id="matched">{h.matched.clone()}</dd>
                            <dt>{"tokens"}</dt><dd id="tokens">{h.tokens.clone()}</dd>
                            <dt>{"verdict"}</dt><dd id="verdict">{h.verdict.clone()}</dd>
                        </>
                    },
                }}
            </dl>
        </>
    }
}

#[function_component(App)]
fn app() -> Html {
    let answer = use_state(AttrValue::default);
    let shown = use_state(|| true);
    let mounted = use_mut_ref(|| Cell::new(true));
    {
        let (answer, shown) = (answer.setter(), shown.setter());
        use_effect_with((), move |()| {
            chat_kit::expose(
                &profiler(),
                move |text| answer.set(AttrValue::from(text)),
                move || {
                    let m = mounted.borrow();
                    m.set(!m.get());
                    shown.set(m.get());
                    m.get()
                },
            );
        });
    }

    html! {
        <>
            <h1>{"A Yew chat"}</h1>
            if *shown {
                <Chat answer={(*answer).clone()} />
            } else {
                <p id="unmounted">{"chat unmounted"}</p>
            }
        </>
    }
}

fn main() {
    yew::Renderer::<App>::new().render();
}
