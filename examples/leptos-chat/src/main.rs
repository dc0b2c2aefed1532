//! A Leptos chat page that streams an answer from an OpenAI-compatible server (the demo server's
//! simulated one), renders it as it arrives, and shows tokenpaint's headline figures of each
//! answer, read from the typed report.
//!
//! The tokenpaint part is a few lines in `Chat`: a profiler, `observe` on the message list,
//! `on_report` and `on_progress` (guards, dropped when the component unmounts), and
//! `profiler.fetch` (in `chat_kit::stream`).
//!
//! For the tests, the page also records its own truth (when its reader got each delta, and when
//! Leptos wrote the text that shows it to the DOM) and exposes the hooks of `chat_kit::expose`.
use std::cell::RefCell;
use std::rc::Rc;

use chat_kit::Headline;
use leptos::html;
use leptos::prelude::*;
use send_wrapper::SendWrapper;
use tokenpaint::types::Progress;
use tokenpaint::web::{ObserveGuard, Options, Profiler, Subscription};

thread_local! {
    /// One profiler for the page, made when the page starts.
    static PROFILER: Profiler = Profiler::new(&Options { label: Some("leptos".into()), ..Options::default() });
}

fn profiler() -> Profiler {
    PROFILER.with(Profiler::clone)
}

#[component]
fn Chat(answer: ReadSignal<String>) -> impl IntoView {
    let list = NodeRef::<html::Div>::new();
    let (headline, set_headline) = signal(None::<Headline>);
    let (live, set_live) = signal(None::<(Option<i64>, u64)>);
    // tokenpaint: watch the message list, the answer as it streams, and each report, for as long
    // as this is mounted.
    let guards: Rc<RefCell<Option<(ObserveGuard, Subscription, Subscription)>>> = Rc::default();
    let held = guards.clone();
    Effect::new(move |_| {
        if let Some(el) = list.get() {
            let p = profiler();
            let watching = p.observe(&el);
            let reports = p.on_report(move |r| {
                set_headline.set(Some(Headline::of(r)));
                chat_kit::keep_for_tests("typedReports", r);
            });
            let progress = p.on_progress(move |x: &Progress| {
                set_live.set(Some((x.backlog, x.arrived)));
                chat_kit::keep_for_tests("typedProgress", x);
            });
            *held.borrow_mut() = Some((watching, reports, progress));
        }
    });
    let guards = SendWrapper::new(guards);
    on_cleanup(move || drop(guards.borrow_mut().take()));

    view! {
        <div class="messages" node_ref=list>
            <p class="user">"Explain streaming latency."</p>
            <p class="answer">
                {move || {
                    let text = answer.get();
                    // The app's truth: Leptos writes this text node now.
                    chat_kit::committed(text.len());
                    text
                }}
            </p>
        </div>
        <p id="live">
            {move || live.get().map(|(backlog, arrived)| chat_kit::live_line(backlog, arrived))}
        </p>
        <dl id="headline">
            {move || match headline.get() {
                None => view! { <dt>"report"</dt><dd>"waiting for an answer"</dd> }.into_any(),
                Some(h) => view! {
                    <dt>"TTFT (network)"</dt><dd id="ttft">{h.ttft}</dd>
                    <dt>"TTFT (perceived)"</dt><dd id="ttft-perceived">{h.ttft_perceived}</dd>
                    <dt>"lag p50"</dt><dd id="lag">{h.lag_p50}</dd>
                    <dt>"matched"</dt><dd id="matched">{h.matched}</dd>
                    <dt>"tokens"</dt><dd id="tokens">{h.tokens}</dd>
                    <dt>"verdict"</dt><dd id="verdict">{h.verdict}</dd>
                }.into_any(),
            }}
        </dl>
    }
}

#[component]
fn App() -> impl IntoView {
    let (answer, set_answer) = signal(String::new());
    let shown = RwSignal::new(true);
    chat_kit::expose(
        &profiler(),
        move |text| set_answer.set(text),
        move || {
            shown.update(|s| *s = !*s);
            shown.get_untracked()
        },
    );

    view! {
        <h1>"A Leptos chat"</h1>
        <Show when=move || shown.get() fallback=|| view! { <p id="unmounted">"chat unmounted"</p> }>
            <Chat answer=answer />
        </Show>
    }
}

fn main() {
    leptos::mount::mount_to_body(App);
    chat_kit::ready();
}
