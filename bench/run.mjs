// `npm run bench`: runs the benchmarks side by side in one run and rewrites BENCHMARKS.md with
// the table, the machine and the command. Not part of `npm test` (figures, not behaviour).
import { writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { run as parser } from './parser.mjs';
import { runAlign } from './align.mjs';
import sizes from '../scripts/size.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sh = (cmd) => {
  try {
    return execSync(cmd, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

console.log('\n== parser throughput');
const p = parser(7);
for (const r of p.rows) console.log(`${r.name.padEnd(34)} ${r.ms.toFixed(1).padStart(8)} ms ${r.mbps.toFixed(1).padStart(8)} MB/s`);
console.log(`ratio: ${p.ratio.toFixed(2)}x`);

console.log('\n== alignment cost');
const al = runAlign(7);
for (const r of al.rows) console.log(`${String(r.chars).padStart(6)} chars ${String(r.updates).padStart(5)} updates ${r.mode.padEnd(13)} ${r.ms.toFixed(1).padStart(9)} ms ${r.usPerUpdate.toFixed(1).padStart(8)} µs/update`);
const inc = al.rows.filter((r) => r.mode === 'incremental');
const growth = inc[1].usPerUpdate / inc[0].usPerUpdate;

const kb = (n) => (n / 1024).toFixed(1);
const md = `# Benchmarks

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (commit ${sh('git rev-parse --short HEAD')}).
Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}.
Figures on these machines are noisy: compare rows of one run, read ratios and medians.

## Parser throughput

The same ${p.mb.toFixed(1)} MB OpenAI chat stream (${p.events} events) cut into the same ${p.chunks} chunks of 0.5–8 KB, read in
one Node process; median of ${p.rounds} interleaved rounds. tokenpaint is its wasm module (SSE framer + OpenAI
adapter + timeline, one call per chunk as in the browser); the reference is what chat apps run:
eventsource-parser (with TextDecoder) and \`JSON.parse\` of every event. Both count the same deltas.

| reader | median ms | MB/s |
|---|---:|---:|
${p.rows.map((r) => `| ${r.name} | ${r.ms.toFixed(1)} | ${r.mbps.toFixed(1)} |`).join('\n')}

tokenpaint / reference: **${p.ratio.toFixed(2)}x** (target: at least 2x).

## Alignment cost

A markdown answer rendered whole by marked on every update; the core gets its text content as
the shell sends it (only what changed after the unchanged prefix). Core time only, median of
${al.rounds} rounds. "from scratch" re-matches the whole text on every update (no checkpoints).

| answer | updates | mode | total ms | µs per update | matched |
|---:|---:|---|---:|---:|---:|
${al.rows.map((r) => `| ${r.chars} chars | ${r.updates} | ${r.mode} | ${r.ms.toFixed(1)} | ${r.usPerUpdate.toFixed(1)} | ${r.matched}% |`).join('\n')}

Cost per update, 50k vs 5k characters (incremental): **${growth.toFixed(2)}x** (flat means it does not grow
with message length).

## Size

What a page downloads (\`npm run size\`), in KB.

| part | raw | gzip | brotli |
|---|---:|---:|---:|
${sizes.map((r) => `| ${r.name} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.brotli)} |`).join('\n')}
`;
writeFileSync(path.join(root, 'BENCHMARKS.md'), md);
console.log('\nwrote BENCHMARKS.md');
