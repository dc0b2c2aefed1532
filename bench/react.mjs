// A page like the ones users ship (issue 33): React 19 in StrictMode with react-markdown, the
// whole answer re-rendered on every delta (bench/pages/react.jsx), with and without tokenpaint,
// and with the floor of an instrument of tokenpaint's precision alone. What tokenpaint adds to the
// page's own main-thread time, two ways: the difference of the pages' TaskDuration (CDP, thread
// ticks; one page at a time), and tokenpaint's own samples in a CPU profile
// (bench/attribution.mjs) against the page's busy samples in the same round (side by side).
// Budget: ≤ 2%.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS, median } from '../tests/support/helpers.mjs';
import { attribute, underProfiler } from './attribution.mjs';
import { bundleJsx } from '../tests/support/bundle.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The page's busy time in a profile: every sample but the idle ones (ms). */
export function busyMs(profile) {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) if (!idle.has(profile.samples[i])) us += profile.timeDeltas[i];
  return us / 1000;
}

/** A new page with the React chat, ready to run, and its DevTools session timing the main thread. */
export async function openReact(browser, url, { init = null } = {}) {
  const page = await browser.newPage();
  if (init) await page.addInitScript(init);
  await page.goto(`${url}/bench/pages/react.html`);
  await page.waitForFunction(() => window.reactReady === true, null, { timeout: 30000 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  return { page, cdp };
}

/** The page's main-thread time so far (TaskDuration, thread ticks), ms. */
export async function taskMs(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return metrics.find((m) => m.name === 'TaskDuration').value * 1000;
}

export const bundleReact = () => bundleJsx(path.join(here, 'pages/react.jsx'), path.join(here, 'pages/react.bundle.js'));

export async function runReact({ rounds = 3, profileRounds = 3, tokens = 600, tokenMs = 20, sampleUs = 200, log = console.log } = {}) {
  await bundleReact();
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const query = `ttft_ms=100&token_ms=${tokenMs}&tokens=${tokens}`;
  try {
    const open = async (floorMode = null) => ({ ...(await openReact(browser, url)), floorMode });
    const task = taskMs;
    const check = (r, profile) => {
      if (r.deltas !== tokens) throw new Error(`deltas ${r.deltas} of ${tokens}`);
      if (profile && (!r.report || r.report.status !== 'ok' || r.report.deltas !== tokens)) throw new Error(`report ${JSON.stringify(r.report)}`);
    };
    // The floor (bench/pages/floor.js) on React pages of its own, with the commit observer on the
    // chat and nothing else: 'bracket', one frame bracketed per commit (its start and its
    // after-paint mark), what any instrument with tokenpaint's precision pays; 'frame', the
    // frame's start alone, what any instrument that marks the painted frame pays.
    const pages = { without: await open(), with: await open(), bracket: await open('bracket'), frame: await open('frame') };
    const startFloor = (p) =>
      p.floorMode && p.page.evaluate((mode) => import('/bench/pages/floor.js').then((m) => (window.stopFloor = m.startFloor(true, mode)) && 0), p.floorMode);
    // A floor that saw no text or marked no frame would measure nothing: the bench stops.
    const stopFloor = async (p) => {
      if (!p.floorMode) return;
      const seen = await p.page.evaluate(() => (window.stopFloor(), window.floorSeen));
      if (!(seen.chars > 0 && seen.frames > 0)) throw new Error(`the ${p.floorMode} floor saw ${JSON.stringify(seen)}`);
    };
    // One page at a time, in an order that turns each round: two pages side by side on two cores
    // disturb each other more than the rounds differ.
    const keys = Object.keys(pages);
    const task_ = Object.fromEntries(keys.map((k) => [k, []]));
    const rows = [];
    for (let k = 0; k < rounds; k++) {
      const got = {};
      for (const key of keys.slice(k % keys.length).concat(keys.slice(0, k % keys.length))) {
        const p = pages[key];
        await startFloor(p);
        const before = await task(p.cdp);
        const r = await p.page.evaluate((a) => window.run(a), { query, profile: key === 'with' });
        got[key] = { ...r, task: (await task(p.cdp)) - before };
        await stopFloor(p);
        check(r, key === 'with');
        task_[key].push(got[key].task);
      }
      const a = got.without;
      const b = got.with;
      const row = {
        without: a.task,
        added: b.task - a.task,
        share: (b.task - a.task) / a.task,
        bracketShare: (got.bracket.task - a.task) / a.task,
        frameShare: (got.frame.task - a.task) / a.task,
        matched: b.report.matchedPct,
        verdict: b.report.verdict,
      };
      rows.push(row);
      log(
        `round ${k + 1}: task ${a.task.toFixed(0)} / ${b.task.toFixed(0)} ms: added ${row.added.toFixed(0)} ms (${(row.share * 100).toFixed(2)}%); ` +
          `the floor ${(row.bracketShare * 100).toFixed(2)}% (a frame's start alone ${(row.frameShare * 100).toFixed(2)}%), matched ${row.matched}%, ${row.verdict}`,
      );
    }
    // The profile: the page without tokenpaint, with it, and the bracket floor, side by side.
    const plain = pages.without;
    const profiled = pages.with;
    const floor = pages.bracket;
    const isFloor = (u) => /\/bench\/pages\/floor\.js$/.test(u || '');
    const prof = [];
    for (let k = 0; k < profileRounds; k++) {
      const one = async ({ page, cdp }, profile, mine) => {
        const { result, profile: cpu } = await underProfiler(cdp, sampleUs, () => page.evaluate((a) => window.run(a), { query, profile }));
        check(result, profile);
        const at = attribute(cpu, mine);
        if (at.leaves && process.env.LEAVES) for (const [name, ms] of at.leaves.slice(0, 25)) log(`  ${mine ? 'floor ' : ''}${ms.toFixed(1).padStart(7)} ${name}`);
        if (at.parts && process.env.LEAVES) log(JSON.stringify(at.parts));
        return { own: at.total, busy: busyMs(cpu) };
      };
      await startFloor(floor);
      const [a, b, f] = await Promise.all([one(plain, false), one(profiled, true), one(floor, false, isFloor)]);
      await stopFloor(floor);
      const row = { own: b.own, floor: f.own, busy: a.busy, share: b.own / a.busy, floorShare: f.own / a.busy };
      prof.push(row);
      log(`profiled round ${k + 1}: tokenpaint's own ${b.own.toFixed(1)} ms, the floor's ${f.own.toFixed(1)} ms, the page's busy time ${a.busy.toFixed(0)} ms (without tokenpaint): ${(row.share * 100).toFixed(2)}% (the floor ${(row.floorShare * 100).toFixed(2)}%)`);
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
      // Medians of each page's own rounds against the page without tokenpaint.
      taskMedians: Object.fromEntries(keys.map((k) => [k, median(task_[k])])),
      floorShare: median(rows.map((r) => r.bracketShare)),
      floorShares: rows.map((r) => r.bracketShare),
      frameShare: median(rows.map((r) => r.frameShare)),
      frameShares: rows.map((r) => r.frameShare),
      matched: Math.min(...rows.map((r) => r.matched)),
      verdicts: [...new Set(rows.map((r) => r.verdict))],
      own: median(prof.map((r) => r.own)),
      busy: median(prof.map((r) => r.busy)),
      ownShare: median(prof.map((r) => r.share)),
      ownShares: prof.map((r) => r.share),
      floorOwn: median(prof.map((r) => r.floor)),
      floorOwnShare: median(prof.map((r) => r.floorShare)),
      floorOwnShares: prof.map((r) => r.floorShare),
    };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runReact({ rounds: Number(process.env.ROUNDS || 3), profileRounds: Number(process.env.PROFILE_ROUNDS || 3), tokens: Number(process.env.TOKENS || 600) }), null, 1));
}
