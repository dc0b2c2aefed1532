// Alignment cost: a markdown answer rendered whole by marked on every update (its text
// content passed to the core as the shell does: only what changed since the unchanged prefix,
// found by the shell's resumeAt, which compares native strings and is not timed),
// one update per 25 characters, for 1k, 10k and 100k characters. Only the core's time is counted.
// "from scratch" re-matches the whole text on every update, as without checkpoints.
import { fileURLToPath } from 'node:url';
import { marked } from 'marked';
import { Core, openBench } from './core.mjs';
import { resumeAt } from '../js/browser/dom.js';
import { MARKDOWN, tokenize } from '../scripts/sim.mjs';

const ENTITIES = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#39;': "'" };
const textOf = (html) => html.replace(/<[^>]*>/g, '').replace(/&(lt|gt|amp|quot|#39);/g, (e) => ENTITIES[e]);

/** `chars` characters of markdown cut into tokens, and `updates` rendered texts along it. */
export function workload(chars, updates) {
  let md = '';
  while (md.length < chars) md += MARKDOWN + '\n';
  md = md.slice(0, chars);
  const tokens = tokenize(md, 5);
  const steps = [];
  let text = '';
  for (let u = 0; u < updates; u++) {
    const batch = tokens.slice(Math.round((u * tokens.length) / updates), Math.round(((u + 1) * tokens.length) / updates));
    text += batch.join('');
    steps.push({ batch, rendered: textOf(marked.parse(text)) });
  }
  return steps;
}

export function run(steps, incremental) {
  const core = new Core();
  const enc = new TextEncoder();
  const id = openBench(core, 'sse-text');
  let prev = '';
  // The furthest offset the core can resume a re-render from, as render() returned it.
  let limit = 0;
  let ms = 0;
  let t = 0;
  for (const { batch, rendered } of steps) {
    const body = enc.encode(batch.map((x) => `data: ${x.replace(/\n/g, '\ndata: ')}\n\n`).join(''));
    t += 1;
    core.chunk(id, body, t, false, NaN);
    const from = incremental ? resumeAt(prev, rendered, limit) : 0;
    const t0 = performance.now();
    let r = core.render(id, from ? rendered.slice(from) : rendered, from, t + 0.5);
    if (r < 0) r = core.render(id, rendered, 0, t + 0.5);
    ms += performance.now() - t0;
    limit = r < 0 ? 0 : Math.floor(r / 2 ** 32);
    prev = rendered;
  }
  core.end(id, 0, t + 1, '');
  const report = JSON.parse(core.finish(id, false, false));
  core.free();
  return { ms, matched: report.matchedPct };
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

export function runAlign(rounds = 7) {
  // An update every 25 characters (about 5 tokens), for answers of 1k, 10k and 100k characters.
  const cases = [
    { chars: 1000, updates: 40 },
    { chars: 10000, updates: 400 },
    { chars: 100000, updates: 4000 },
  ];
  // Warm up the wasm module and the JIT on both paths before timing anything.
  const warm = workload(5000, 200);
  for (let i = 0; i < 5; i++) {
    run(warm, true);
    run(warm, false);
  }
  const rows = [];
  for (const c of cases) {
    const steps = workload(c.chars, c.updates);
    for (const incremental of [true, false]) {
      const times = [];
      let matched = null;
      for (let r = 0; r < rounds; r++) {
        const x = run(steps, incremental);
        times.push(x.ms);
        matched = x.matched;
      }
      const ms = median(times);
      rows.push({ ...c, updates: steps.length, mode: incremental ? 'incremental' : 'from scratch', ms, usPerUpdate: (ms * 1000) / steps.length, matched });
    }
  }
  return { rounds, rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { rows } = runAlign();
  for (const r of rows) console.log(`${String(r.chars).padStart(6)} chars ${String(r.updates).padStart(5)} updates ${r.mode.padEnd(13)} ${r.ms.toFixed(1).padStart(9)} ms ${r.usPerUpdate.toFixed(1).padStart(8)} µs/update  matched ${r.matched}%`);
}
