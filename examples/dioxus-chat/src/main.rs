//! A Dioxus (web) chat page that streams an answer from an OpenAI-compatible server (the demo
//! server's simulated one), renders it as it arrives, and shows tokenpaint's headline figures of
//! each answer, read from the typed report.
//!
//! The tokenpaint part is a few lines in `Chat`: a profiler, `observe` on the message list once
//! it is mounted (`onmounted`), `on_report` and `on_progress`, all three guards held in a hook and
//! dropped in `use_drop` when the component unmounts, and `profiler.fetch` (in
//! `chat_kit::stream`).
//!
//! For the tests, the page also records its own truth (when its reader got each delta, and when
//! Dioxus had written the text that shows it: `use_effect` runs after the edits are applied) and
//! exposes the hooks of `chat_kit::expose`.
use std::cell::RefCell;
use std::rc::Rc;

use chat_kit::Headline;
use dioxus::prelude::*;
use dioxus::web::WebEventExt;
use tokenpaint::types::Progress;
use tokenpaint::web::{ObserveGuard, Options, Profiler, Subscription};

thread_local! {
    /// One profiler for the page, made when the page starts.
    static PROFILER: Profiler = Profiler::new(&Options { label: Some("dioxus".into()), ..Options::default() });
}

fn profiler() -> Profiler {
    PROFILER.with(Profiler::clone)
}

/// What the chat holds while it is mounted: the observed list, the report and progress callbacks.
type Guards = Rc<RefCell<Option<(ObserveGuard, Subscription, Subscription)>>>;

#[component]
fn Chat(answer: ReadSignal<String>) -> Element {
    let mut headline = use_signal(|| None::<Headline>);
    let mut live = use_signal(|| None::<(Option<i64>, u64)>);
    // tokenpaint: the guards live as long as the component; dropping them unobserves and
    // unsubscribes.
    let guards: Guards = use_hook(Guards::default);
    let held = guards.clone();
    use_drop(move || drop(held.borrow_mut().take()));
    // The app's truth: effects run once Dioxus has applied the render's edits to the DOM.
    use_effect(move || chat_kit::committed(answer.read().len()));

    rsx! {
        div {
            class: "messages",
            onmounted: move |e| {
                let Some(el) = e.try_as_web_event() else { return };
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
                *guards.borrow_mut() = Some((watching, reports, progress));
                chat_kit::ready();
            },
            p { class: "user", "Explain streaming latency." }
            p { class: "answer", "{answer}" }
        }
        p { id: "live",
            if let Some((backlog, arrived)) = live() {
                {chat_kit::live_line(backlog, arrived)}
            }
        }
        dl { id: "headline",
            match headline() {
                None => rsx! {
                    dt { "report" }
                    dd { "waiting for an answer" }
                },
                Some(h) => rsx! {
                    dt { "TTFT (network)" }
                    dd { id: "ttft", {h.ttft} }
                    dt { "TTFT (perceived)" }
                    dd { id: "ttft-perceived", {h.ttft_perceived} }
                    dt { "lag p50" }
                    dd { id: "lag", {h.lag_p50} }
                    dt { "matched" }
                    dd { id: "matched", {h.matched} }
                    dt { "tokens" }
                    dd { id: "tokens", {h.tokens} }
                    dt { "verdict" }
                    dd { id: "verdict", {h.verdict} }
                },
            }
        }
    }
}

#[component]
fn App() -> Element {
    let answer = use_signal(String::new);
    let shown = use_signal(|| true);
    use_hook(move || {
        chat_kit::expose(
            &profiler(),
            // Signals are `Copy`: each call writes through its own copy.
            move |text| {
                let mut answer = answer;
                answer.set(text);
            },
            move || {
                let mut shown = shown;
                let now = !shown();
                shown.set(now);
                now
            },
        )
    });

    rsx! {
        h1 { "A Dioxus chat" }
        if shown() {
            Chat { answer }
        } else {
            p { id: "unmounted", "chat unmounted" }
        }
    }
}

fn main() {
    dioxus::launch(App);
}
