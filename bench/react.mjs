// A page like the ones users ship (issue 33): React 19 in StrictMode with react-markdown, the
// whole answer re-rendered on every delta (bench/pages/react.jsx), with and without tokenpaint,
// two pages side by side in each round. What tokenpaint adds to the page's own main-thread time,
// two ways: the difference of the two pages' TaskDuration (CDP, thread ticks), and tokenpaint's
// own samples in a CPU profile (bench/attribution.mjs) against the page's busy samples in the
// same round. Budget: ≤ 2%.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS } from '../tests/support/helpers.mjs';
import { attribute, underProfiler } from './attribution.mjs';
import { bundleJsx } from '../tests/support/bundle.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The page's busy time in a profile: every sample but the idle ones (ms). */
export function busyMs(profile) {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) if (!idle.has(profile.samples[i])) us += profile.timeDeltas[i];
  return us / 1000;
}

export const bundleReact = () => bundleJsx(path.join(here, 'pages/react.jsx'), path.join(here, 'pages/react.bundle.js'));

export async function runReact({ rounds = 3, profileRounds = 3, tokens = 600, tokenMs = 20, sampleUs = 200, log = console.log } = {}) {
  await bundleReact();
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const query = `ttft_ms=100&token_ms=${tokenMs}&tokens=${tokens}`;
  try {
    const open = async () => {
      const page = await browser.newPage();
      await page.goto(`${url}/bench/pages/react.html`);
      await page.waitForFunction(() => window.reactReady === true, null, { timeout: 30000 });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
      return { page, cdp };
    };
    const task = async (cdp) => {
      const { metrics } = await cdp.send('Performance.getMetrics');
      return metrics.find((m) => m.name === 'TaskDuration').value * 1000;
    };
    const plain = await open();
    const profiled = await open();
    const check = (r, profile) => {
      if (r.deltas !== tokens) throw new Error(`deltas ${r.deltas} of ${tokens}`);
      if (profile && (!r.report || r.report.status !== 'ok' || r.report.deltas !== tokens)) throw new Error(`report ${JSON.stringify(r.report)}`);
    };
    const rows = [];
    for (let k = 0; k < rounds; k++) {
      const one = async ({ page, cdp }, profile) => {
        const before = await task(cdp);
        const r = await page.evaluate((a) => window.run(a), { query, profile });
        check(r, profile);
        return { ...r, task: (await task(cdp)) - before };
      };
      const [a, b] = await Promise.all([one(plain, false), one(profiled, true)]);
      const row = { without: a.task, with: b.task, added: b.task - a.task, share: (b.task - a.task) / a.task, matched: b.report.matchedPct, verdict: b.report.verdict };
      rows.push(row);
      log(`round ${k + 1}: task ${a.task.toFixed(0)} / ${b.task.toFixed(0)} ms: added ${row.added.toFixed(0)} ms (${(row.share * 100).toFixed(2)}%), matched ${row.matched}%, ${row.verdict}`);
    }
    const prof = [];
    for (let k = 0; k < profileRounds; k++) {
      const one = async ({ page, cdp }, profile) => {
        const { result, profile: cpu } = await underProfiler(cdp, sampleUs, () => page.evaluate((a) => window.run(a), { query, profile }));
        check(result, profile);
        const at = attribute(cpu);
        if (at.leaves) for (const [name, ms] of at.leaves.slice(0, 25)) log(`  ${ms.toFixed(1).padStart(7)} ${name}`);
        if (at.parts && process.env.LEAVES) log(JSON.stringify(at.parts));
        return { own: at.total, busy: busyMs(cpu) };
      };
      const [a, b] = await Promise.all([one(plain, false), one(profiled, true)]);
      const row = { own: b.own, busy: a.busy, share: b.own / a.busy };
      prof.push(row);
      log(`profiled round ${k + 1}: tokenpaint's own ${b.own.toFixed(1)} ms, the page's busy time ${a.busy.toFixed(0)} ms (without tokenpaint): ${(row.share * 100).toFixed(2)}%`);
    }
    return {
      tokens,
      tokenMs,
      rounds,
      profileRounds,
      taskWithout: median(rows.map((r) => r.without)),
      added: median(rows.map((r) => r.added)),
      share: median(rows.map((r) => r.share)),
      shares: rows.map((r) => r.share),
      matched: Math.min(...rows.map((r) => r.matched)),
      verdicts: [...new Set(rows.map((r) => r.verdict))],
      own: median(prof.map((r) => r.own)),
      busy: median(prof.map((r) => r.busy)),
      ownShare: median(prof.map((r) => r.share)),
      ownShares: prof.map((r) => r.share),
    };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runReact({ rounds: Number(process.env.ROUNDS || 3), profileRounds: Number(process.env.PROFILE_ROUNDS || 3), tokens: Number(process.env.TOKENS || 600) }), null, 1));
}
