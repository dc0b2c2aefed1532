// Parser throughput, in one Node process, on the same 10 MB OpenAI-style stream cut into the
// same chunks: tokenpaint's SSE framer + OpenAI adapter (the wasm module, one call per chunk,
// as in the browser) against eventsource-parser + JSON.parse (what chat apps run).
import { fileURLToPath } from 'node:url';
import { createParser } from 'eventsource-parser';
import { Core, openBench } from './core.mjs';

/** A deterministic OpenAI chat stream of about `size` bytes, and its chunks (0.5–8 KB). */
export function makeStream(size = 10 * 1024 * 1024) {
  const words = ['the', ' latency', ' of', ' a', ' streamed', ' answer', ' café', ' 東京', ' 😀', '\n', ' "quoted"', ' tab\there'];
  const parts = [];
  let bytes = 0;
  let i = 0;
  const enc = new TextEncoder();
  while (bytes < size) {
    const delta = { content: words[i % words.length] };
    const ev = `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1718000000, model: 'bench-model', system_fingerprint: 'fp_bench', choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] })}\n\n`;
    const b = enc.encode(ev);
    parts.push(b);
    bytes += b.length;
    i++;
  }
  parts.push(enc.encode('data: [DONE]\n\n'));
  const all = new Uint8Array(bytes + 14);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const chunks = [];
  let seed = 7;
  for (let o = 0; o < all.length; ) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const n = 512 + (seed % 7680);
    chunks.push(all.subarray(o, o + n));
    o += n;
  }
  return { bytes: all.length, events: i, chunks };
}

export function tokenpaint(chunks) {
  const core = new Core();
  const id = openBench(core, 'auto');
  let t = 0;
  for (const c of chunks) core.chunk(id, c, t++, false, NaN);
  core.end(id, 0, t, '');
  const report = JSON.parse(core.finish(id, false, false));
  core.free();
  return report.deltas;
}

export function eventsourceParser(chunks) {
  let n = 0;
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(e) {
      if (e.data === '[DONE]') return;
      const content = JSON.parse(e.data).choices?.[0]?.delta?.content;
      if (content) n++;
    },
  });
  for (const c of chunks) parser.feed(decoder.decode(c, { stream: true }));
  return n;
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

/** Runs both, `rounds` times each, interleaved; returns MB/s medians and the ratio. */
export function run(rounds = 7) {
  const s = makeStream();
  const mb = s.bytes / (1024 * 1024);
  const times = { tokenpaint: [], 'eventsource-parser + JSON.parse': [] };
  // Warm-up, and a check that both read the same number of deltas.
  const a = tokenpaint(s.chunks);
  const b = eventsourceParser(s.chunks);
  if (a !== s.events || b !== s.events) throw new Error(`delta counts differ: ${a} ${b} ${s.events}`);
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of [
      ['tokenpaint', tokenpaint],
      ['eventsource-parser + JSON.parse', eventsourceParser],
    ]) {
      const t0 = performance.now();
      fn(s.chunks);
      times[name].push(performance.now() - t0);
    }
  }
  const rows = Object.entries(times).map(([name, t]) => ({ name, ms: median(t), mbps: mb / (median(t) / 1000) }));
  return { mb, events: s.events, chunks: s.chunks.length, rounds, rows, ratio: rows[0].mbps / rows[1].mbps };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = run();
  console.log(`${r.mb.toFixed(1)} MB, ${r.events} events, ${r.chunks} chunks, median of ${r.rounds} rounds`);
  for (const row of r.rows) console.log(`${row.name.padEnd(34)} ${row.ms.toFixed(1).padStart(8)} ms ${row.mbps.toFixed(1).padStart(8)} MB/s`);
  console.log(`ratio (tokenpaint / eventsource-parser + JSON.parse): ${r.ratio.toFixed(2)}x`);
}
