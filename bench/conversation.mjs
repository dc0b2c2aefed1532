// Long conversations (issue 33): tokenpaint's own main-thread time per token for an answer
// streamed into an observed container that already holds 0, 50 or 200 earlier answers (about
// 2,000 characters each, up to 400 KB of text), on the reference chat page (bench/pages/chat.js).
// tokenpaint's own time is the CPU profile's samples with its frames on the stack
// (bench/attribution.mjs); the rounds alternate the three sizes so that all see the same
// machine noise. Flat means the largest median per token within 1.3× of the smallest.
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS, median } from '../tests/support/helpers.mjs';
import { openChat } from './longtasks.mjs';
import { attribute, underProfiler } from './attribution.mjs';

export async function runConversation({ rounds = 5, tokens = 4000, tokenMs = 2, sizes = [0, 50, 200], sampleUs = 200, log = console.log } = {}) {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await openChat(browser, url);
    const cdp = await page.context().newCDPSession(page);
    const per = new Map(sizes.map((n) => [n, []]));
    const held = new Map();
    const matched = new Map(sizes.map((n) => [n, []]));
    for (let k = 0; k < rounds; k++) {
      for (const earlier of k % 2 ? [...sizes].reverse() : sizes) {
        const { result, profile } = await underProfiler(cdp, sampleUs, () => page.evaluate((a) => window.run(a), { tokens, tokenMs, profile: true, earlier }));
        if (result.deltas !== tokens || result.report?.status !== 'ok') throw new Error(`${earlier} earlier answers: ${JSON.stringify(result.report)}`);
        const own = attribute(profile).total;
        per.get(earlier).push((own / tokens) * 1000);
        matched.get(earlier).push(result.report.matchedPct);
        held.set(earlier, result.held);
        log(`round ${k + 1}, ${earlier} earlier answers: tokenpaint's own ${own.toFixed(1)} ms (${((own / tokens) * 1000).toFixed(1)} ms per 1,000 tokens), matched ${result.report.matchedPct}%`);
      }
    }
    const rows = sizes.map((n) => ({ earlier: n, chars: held.get(n), msPerThousand: median(per.get(n)), rounds: per.get(n), matched: Math.min(...matched.get(n)) }));
    const ms = rows.map((r) => r.msPerThousand);
    return { rows, tokens, tokenMs, rounds, growth: Math.max(...ms) / Math.min(...ms) };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runConversation({ rounds: Number(process.env.ROUNDS || 5) });
  console.log(JSON.stringify(r, null, 1));
}
