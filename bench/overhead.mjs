// Main-thread overhead in headless Chromium: the same streamed answer (20,000 tokens, one every
// 5 ms over a real socket) through the reference chat page (bench/pages/chat.js: reader +
// TextDecoder + eventsource-parser + JSON.parse + DOM append), once without and once with
// tokenpaint. The two pages run side by side in each round, so both see the same machine noise.
// CPU time is the renderer main thread's, from the Chrome DevTools Protocol
// (Performance.getMetrics: TaskDuration, ScriptDuration) over the whole run, including
// tokenpaint's report. The reference page's parse time is measured where it runs, around its
// decode + eventsource-parser + JSON.parse of each chunk (the page is cross-origin isolated, so
// performance.now() has 5 µs resolution), in the page without tokenpaint.
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS, median } from '../tests/support/helpers.mjs';
import { attribute, openChat } from './longtasks.mjs';
import { profiledRun } from './attribution.mjs';

async function metrics(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name) => metrics.find((m) => m.name === name)?.value ?? NaN;
  const task = get('TaskDuration') * 1000;
  const layout = (get('LayoutDuration') + get('RecalcStyleDuration')) * 1000;
  return { task, layout, script: get('ScriptDuration') * 1000, layouts: get('LayoutCount') };
}

export async function runOverhead({ rounds = 5, profileRounds = 3, sampleUs = 200, tokens = 20000, tokenMs = 5, floorRounds = 7, floorTokens = 4000, log = console.log } = {}) {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const open = async () => {
      const page = await openChat(browser, url);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
      return { page, cdp };
    };
    const plain = await open();
    const profiled = await open();
    /** One run of `n` tokens on a page, with the main-thread metrics it took. */
    const measured = async ({ page, cdp }, profile, n) => {
      const before = await metrics(cdp);
      const r = await page.evaluate((a) => window.run(a), { tokens: n, tokenMs, profile });
      const after = await metrics(cdp);
      if (r.deltas !== n) throw new Error(`deltas ${r.deltas} of ${n}`);
      return {
        ...r,
        task: after.task - before.task,
        layout: after.layout - before.layout,
        // Main-thread time besides layout and style: tokenpaint reads text, never geometry, so
        // it forces no layout; the page's own layout of a growing answer is most of its time
        // and most of the noise between two pages.
        rest: after.task - after.layout - (before.task - before.layout),
        layouts: after.layouts - before.layouts,
        script: after.script - before.script,
      };
    };
    const rows = [];
    for (let k = 0; k < rounds; k++) {
      const [a, b] = await Promise.all([measured(plain, false, tokens), measured(profiled, true, tokens)]);
      if (!b.report || b.report.status !== 'ok' || b.report.deltas !== tokens) throw new Error(`report ${JSON.stringify(b.report)}`);
      const parse = a.parseMs;
      const row = { without: a, with: b, parse, addedTask: b.task - a.task, added: b.rest - a.rest, addedScript: b.script - a.script };
      rows.push(row);
      log(`round ${k + 1}: task ${a.task.toFixed(0)} / ${b.task.toFixed(0)} ms, layout+style ${a.layout.toFixed(0)} / ${b.layout.toFixed(0)} ms (${a.layouts} / ${b.layouts} layouts), rest ${a.rest.toFixed(0)} / ${b.rest.toFixed(0)} ms, parse ${parse.toFixed(1)} ms, added ${row.added.toFixed(0)} ms, matched ${b.report.matchedPct}%`);
    }
    // Then the same runs under the CPU profiler, side by side: tokenpaint's own time (the samples
    // with its frames on the stack, bench/attribution.mjs) against the page's parse in the same
    // round (the sampler slows both alike). The page without tokenpaint loads the module too:
    // what is attributed to tokenpaint there is the method's own error. A third page runs the
    // floor (bench/pages/floor.js: the frame loop and the commit observer, a script of its own),
    // whose samples are counted the same way: tokenpaint on top of the floor, by profile.
    const profFloor = await open();
    await profFloor.page.evaluate(() => import('/bench/pages/floor.js').then((m) => m.startFloor(true)));
    const isFloor = (u) => /\/bench\/pages\/floor\.js$/.test(u || '');
    const prof = [];
    for (let k = 0; k < profileRounds; k++) {
      const one = async (p, profile, mine) => {
        const { result, ...at } = await profiledRun(p, sampleUs, { tokens, tokenMs, profile }, mine);
        return { ...at, parse: result.parseMs, deltas: result.deltas };
      };
      const [a, b, f] = await Promise.all([one(plain, false), one(profiled, true), one(profFloor, false, isFloor)]);
      if (a.deltas !== tokens || b.deltas !== tokens || f.deltas !== tokens) throw new Error(`deltas ${a.deltas} / ${b.deltas} / ${f.deltas}`);
      prof.push({ without: a, with: b, floor: f });
      log(`profiled round ${k + 1}: tokenpaint's own ${b.total.toFixed(0)} ms (${a.total.toFixed(1)} on the page without it), the floor's ${f.total.toFixed(0)} ms, parse ${a.parse.toFixed(1)} ms: ${(b.total / a.parse).toFixed(2)}x, ${((b.total - f.total) / a.parse).toFixed(2)}x on top of the floor`);
    }
    await profFloor.page.close();
    // Long animation frames over every round, on both pages.
    const loafWith = attribute(await profiled.page.evaluate(() => window.loafs));
    const loafWithout = attribute(await plain.page.evaluate(() => window.loafs));
    log(`long frames: ${loafWithout.long} without, ${loafWith.long} with (${loafWith.tokenpaints} tokenpaint's)`);
    for (const r of loafWith.rows.filter((x) => x.tokenpaintMs >= 30)) log(`  ${r.duration.toFixed(0)} ms frame, tokenpaint ${r.tokenpaintMs.toFixed(1)} ms: ${r.scripts.join(', ')}`);
    // Last (so that its frames are not in the long-frame count above), the floor of bracketing
    // every frame: a third page, the reference page without tokenpaint but with the paint
    // clock's two calls per frame (js/browser/paint.js: a rAF callback that posts a user-blocking task,
    // which requests the next frame) and nothing in them, side by side with the other two over
    // a shorter answer, where the page's own layout (and its noise) is smaller. What a clock
    // that brackets every frame costs before it does any work of its own. A fourth page adds
    // what timing every commit takes at the least: a MutationObserver on the answer's container
    // whose callback takes the time and reads the text nodes added. The two together are the
    // least an instrument with tokenpaint's commit and paint precision runs.
    const floor = await open();
    const observed = await open();
    for (const [p, observe] of [[floor, false], [observed, true]]) {
      await p.page.evaluate((withObserver) => import('/bench/pages/floor.js').then((m) => m.startFloor(withObserver)), observe);
    }
    const floorRows = [];
    for (let k = 0; k < floorRounds; k++) {
      const [a, b, f, o] = await Promise.all([measured(plain, false, floorTokens), measured(profiled, true, floorTokens), measured(floor, false, floorTokens), measured(observed, false, floorTokens)]);
      const row = { parse: a.parseMs, floor: f.rest - a.rest, observed: o.rest - a.rest, added: b.rest - a.rest };
      floorRows.push(row);
      log(`floor round ${k + 1} (${floorTokens} tokens): frame loop alone added ${row.floor.toFixed(0)} ms, with the observer ${row.observed.toFixed(0)} ms, tokenpaint ${row.added.toFixed(0)} ms, parse ${row.parse.toFixed(1)} ms`);
    }
    const seen = await observed.page.evaluate(() => window.floorSeen.chars);
    if (!(seen > 0)) throw new Error('the floor observer saw no text');
    await floor.page.close();
    await observed.page.close();
    const m = (f) => median(rows.map(f));
    const fm = (f) => median(floorRows.map(f));
    const added = m((r) => r.added);
    const parse = m((r) => r.parse);
    const runMs = m((r) => r.without.ms);
    const frames = runMs / (1000 / 60);
    const pm = (f) => median(prof.map(f));
    const own = pm((r) => r.with.total);
    const ownParse = pm((r) => r.without.parse);
    const partNames = [...new Set(prof.flatMap((r) => Object.keys(r.with.parts)))];
    const parts = partNames.map((name) => ({ name, ms: pm((r) => r.with.parts[name] || 0) })).sort((x, y) => y.ms - x.ms);
    return {
      rounds,
      tokens,
      tokenMs,
      runMs,
      taskWithout: m((r) => r.without.task),
      taskWith: m((r) => r.with.task),
      addedTask: m((r) => r.addedTask),
      layoutWithout: m((r) => r.without.layout),
      layoutWith: m((r) => r.with.layout),
      layoutsWithout: m((r) => r.without.layouts),
      layoutsWith: m((r) => r.with.layouts),
      restWithout: m((r) => r.without.rest),
      restWith: m((r) => r.with.rest),
      scriptWithout: m((r) => r.without.script),
      scriptWith: m((r) => r.with.script),
      added,
      addedRounds: rows.map((r) => r.added),
      floorTokens,
      floorRoundsRun: floorRounds,
      floor: fm((r) => r.floor),
      floorAdded: fm((r) => r.added),
      floorParse: fm((r) => r.parse),
      floorRounds: floorRows.map((r) => r.floor),
      floorRatio: fm((r) => r.floor) / fm((r) => r.parse),
      observedFloor: fm((r) => r.observed),
      observedFloorRounds: floorRows.map((r) => r.observed),
      observedFloorRatio: fm((r) => r.observed) / fm((r) => r.parse),
      floorAddedRatio: fm((r) => r.added) / fm((r) => r.parse),
      // What tokenpaint adds on top of the frame loop and commit observer, in the same rounds.
      onFloorRatio: (fm((r) => r.added) - fm((r) => r.observed)) / fm((r) => r.parse),
      addedScript: m((r) => r.addedScript),
      parse,
      perThousand: (added / tokens) * 1000,
      ratio: added / parse,
      // Per frame at 200 tokens per second; at 100 per second a frame holds half the tokens and
      // the same per-frame work, so this is an upper bound for it.
      perFrame: added / frames,
      matched: m((r) => r.with.report.matchedPct),
      profileRounds,
      sampleUs,
      own,
      ownWithout: pm((r) => r.without.total),
      ownParse,
      ownPerThousand: (own / tokens) * 1000,
      // Nothing attributed is a profile that saw no tokenpaint frame (renamed files, a sampler
      // that did not run), not a cost of zero: no ratio then.
      ownRatio: own > 0 && ownParse > 0 ? own / ownParse : null,
      ownRatios: prof.map((r) => r.with.total / r.without.parse),
      // The floor's own time by profile, and tokenpaint's on top of it, per round and median.
      profFloor: pm((r) => r.floor.total),
      profFloorRatio: pm((r) => r.floor.total / r.without.parse),
      profOnFloorRatio: pm((r) => (r.with.total - r.floor.total) / r.without.parse),
      profOnFloorRatios: prof.map((r) => (r.with.total - r.floor.total) / r.without.parse),
      parts,
      loafWith,
      loafWithout,
    };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tokens = Number(process.env.TOKENS || 20000);
  const rounds = Number(process.env.ROUNDS || 5);
  const profileRounds = Number(process.env.PROFILE_ROUNDS || 3);
  const floorRounds = Number(process.env.FLOOR_ROUNDS || 7);
  console.log(await runOverhead({ tokens, rounds, profileRounds, floorRounds }));
}
