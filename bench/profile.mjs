// tokenpaint's own main-thread time by CPU profile alone, quickly: the overhead bench's profiled
// rounds (the reference chat page with and without tokenpaint, side by side), with the entry
// points. For trying a change; `npm run bench` runs the whole overhead bench.
// Usage: TOKENS=6000 ROUNDS=3 node bench/profile.mjs
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS, median } from '../tests/support/helpers.mjs';
import { openChat } from './longtasks.mjs';
import { profiledRun } from './attribution.mjs';

export async function runProfile({ rounds = 3, tokens = 6000, tokenMs = 5, sampleUs = 200, log = console.log } = {}) {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const open = async () => {
      const page = await openChat(browser, url);
      return { page, cdp: await page.context().newCDPSession(page) };
    };
    const plain = await open();
    const profiled = await open();
    // The floor (bench/pages/floor.js): the frame loop and the commit observer, on a third page.
    const floor = await open();
    await floor.page.evaluate(() => import('/bench/pages/floor.js').then((m) => m.startFloor(true)));
    const isFloor = (u) => /\/bench\/pages\/floor\.js$/.test(u || '');
    const rows = [];
    for (let k = 0; k < rounds; k++) {
      const one = async (p, profile, mine) => {
        const { result, ...at } = await profiledRun(p, sampleUs, { tokens, tokenMs, profile }, mine);
        return { ...at, parse: result.parseMs, deltas: result.deltas, matched: result.report && result.report.matchedPct };
      };
      const [a, b, f] = await Promise.all([one(plain, false), one(profiled, true), one(floor, false, isFloor)]);
      if (b.leaves) for (const [name, ms] of b.leaves) log(`  ${ms.toFixed(1).padStart(7)} ${name}`);
      if (f.leaves) for (const [name, ms] of f.leaves.slice(0, 8)) log(`  floor ${ms.toFixed(1).padStart(7)} ${name}`);
      rows.push({ own: b.total, floor: f.total, parse: a.parse, parts: b.parts, within: b.within, matched: b.matched });
      log(`round ${k + 1}: own ${b.total.toFixed(1)} ms, floor ${f.total.toFixed(1)} ms, parse ${a.parse.toFixed(1)} ms: ${(b.total / a.parse).toFixed(3)}x, on top of the floor ${((b.total - f.total) / a.parse).toFixed(3)}x, matched ${b.matched}%`);
    }
    const names = [...new Set(rows.flatMap((r) => Object.keys(r.parts)))];
    const parts = names.map((name) => ({ name, ms: median(rows.map((r) => r.parts[name] || 0)) })).sort((x, y) => y.ms - x.ms);
    const inner = [...new Set(rows.flatMap((r) => Object.keys(r.within || {})))];
    const within = Object.fromEntries(inner.map((name) => [name, median(rows.map((r) => r.within?.[name] || 0))]));
    return { tokens, within, own: median(rows.map((r) => r.own)), floor: median(rows.map((r) => r.floor)), onFloor: median(rows.map((r) => (r.own - r.floor) / r.parse)), parse: median(rows.map((r) => r.parse)), ratio: median(rows.map((r) => r.own / r.parse)), matched: Math.min(...rows.map((r) => r.matched)), parts };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runProfile({ tokens: Number(process.env.TOKENS || 6000), rounds: Number(process.env.ROUNDS || 3) });
  console.log(`own ${r.own.toFixed(1)} ms per ${r.tokens} tokens, floor ${r.floor.toFixed(1)}, parse ${r.parse.toFixed(1)}: ${r.ratio.toFixed(3)}x, on top of the floor ${r.onFloor.toFixed(3)}x`);
  for (const p of r.parts.slice(0, 14)) console.log(`  ${p.ms.toFixed(1).padStart(7)} ms  ${p.name}`);
}
