// A consumer of the published types, compiled with `tsc --noEmit --strict` by the tests: every
// part of the public API used as the README shows it.
import init, { Profiler, THRESHOLDS, DEFAULTS } from 'tokenpaint';
import type { Report, Summary, Metric, ProfilerOptions, Format } from 'tokenpaint';
import { start } from 'tokenpaint/lazy';
import type { LazyProfiler } from 'tokenpaint/lazy';

const options: ProfilerOptions = {
  format: 'auto',
  settleMs: 1000,
  timeline: true,
  includeText: false,
  slo: { ttftPerceived: { p95: 1000 }, tpot: { p50: 50 } },
  thresholds: { ttft: [800, 2000] },
  serverTiming: (res: Response) => ({ queue: Number(res.headers.get('x-queue') ?? 0) }),
  label: 'chat',
};

async function main(container: HTMLElement): Promise<void> {
  await init();
  const profiler = new Profiler(options);
  profiler.observe(container);
  const off: () => void = profiler.onReport((r: Report) => {
    const ttft: number | null = r.ttft;
    const painted: number | undefined = r.ttftPerceived?.painted;
    const verdict: string | undefined = r.diagnosis[0]?.verdict;
    const queue = r.phases?.find((p) => p.name === 'queue')?.ms ?? null;
    const pattern = r.delivery?.pattern;
    const held: number | undefined = r.intermediary?.heldMeanMs;
    console.log(ttft, painted, verdict, queue, pattern, held, r.status satisfies string);
  });
  profiler.onMetric((m: Metric) => console.log(m.name, m.value, m.rating, m.attribution.diagnosis?.fix));
  const res: Response = await profiler.fetch('/v1/chat/completions', { method: 'POST', body: '{}' });
  await res.text();
  const labeled: typeof fetch = profiler.labeled('gpt-4o');
  const tracked: Response = profiler.track(await labeled('/x'), { target: container, label: 'other' });
  void tracked;
  const s: Summary | null = profiler.summary();
  const p95: number | null | undefined = s?.ttftPerceived.p95;
  const goodput = s?.goodput?.share;
  const byLabel = s?.by.label['chat']?.count;
  const exported: string | null = profiler.exportSummary();
  const merged: boolean = exported ? profiler.mergeSummary(exported) : false;
  const good: readonly [number, number] = THRESHOLDS.ttftPerceived;
  const format: Format = 'anthropic';
  console.log(p95, goodput, byLabel, merged, good, format, DEFAULTS.settleMs);
  off();
  profiler.disconnect();
}

// The stub: sampled page loads, the profiler loaded when needed.
async function sampled(container: Element): Promise<void> {
  const lazy: LazyProfiler = start({ sampleRate: 0.05, streamSampleRate: 0.5, settleMs: 500 });
  lazy.observe(container);
  const off: () => void = lazy.onReport((r: Report) => console.log(r.sampleRate, lazy.sampled, lazy.sampleRate));
  const res: Response = await lazy.fetch('/v1/chat/completions', { method: 'POST', body: '{}' });
  await res.text();
  const real: Profiler | null = await lazy.ready;
  const rate: number | undefined = real?.summary()?.sampleRate;
  const weighted: boolean | undefined = real?.summary()?.weighted;
  console.log(rate, weighted);
  off();
}

void main(document.body);
void sampled(document.body);
