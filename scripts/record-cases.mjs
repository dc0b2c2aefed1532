#!/usr/bin/env node
// Records the corpus (tests/corpus/, issue 59): real sessions, each saved as the timeline a page's
// tokenpaint measured (docs/timeline.md) with the truth of the same run beside it, from outside
// tokenpaint: the server's own figures as it sent them (read off the wire by the browser's
// network layer, not by tokenpaint), and the page's own record of when the answer changed on
// screen (a MutationObserver of the recorder's and an after-paint mark of each change).
// tests/native/corpus.test.mjs analyses every case again, natively, in each `npm test`.
//
//   node scripts/record-cases.mjs [lab] [pairs] [loaded] [apps] [llama]     (npm run record-cases)
//     lab    each lab scenario on a fresh lab page, then all of them one after another in one
//            page (the built-in simulated server; nginx for the proxy one)
//     pairs  only the late-reading page and its twin (PAIRS=10: ten pairs, the first kept)
//     loaded the scenarios named in LOADED (default gzip), RUNS times each, with both cores busy
//     apps   each recorded real app (tests/recordings/) replayed in Chromium
//     llama  a real llama-server (scripts/real-apps/build-llama-server.sh): alone, queued
// Each case says what produced it: the command, the versions, the machine and the date.
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { execSync, spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setup } from '../tests/support/helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(root, 'tests', 'corpus');
mkdirSync(OUT, { recursive: true });
const which = new Set(process.argv.slice(2).length ? process.argv.slice(2) : ['lab']);

const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const sh = (c) => {
  try {
    return execSync(c, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
};
const commit = sh(`git -C ${root} rev-parse --short HEAD`);

/** What produced a case: the command, versions, machine and date. */
function produced(extra = {}) {
  return {
    command: `node scripts/record-cases.mjs ${[...which].join(' ')}`,
    tokenpaint: `${pkg.version} (${commit})`,
    browser: sh('/usr/bin/chromium --version'),
    node: process.version,
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}`,
    load: os.loadavg().map((l) => Math.round(l * 100) / 100),
    date: new Date().toISOString(),
    ...extra,
  };
}

function save(name, c) {
  writeFileSync(path.join(OUT, `${name}.json`), JSON.stringify(c) + '\n');
  console.log(`${name}: ${c.expect?.verdict ?? ''} ${c.report?.verdicts?.join(', ') ?? ''}`);
}

// --- the page's own truth, installed before the page's scripts -------------------------------

/** In the page: each change under `root` (a selector), stamped, and the paint after it. */
function pageTruth(selector) {
  const t = { changes: [], paints: [] };
  window.__truth = t;
  let pending = false;
  const start = () => {
    const el = document.querySelector(selector);
    if (!el) return void setTimeout(start, 10);
    new MutationObserver(() => {
      const at = performance.now();
      t.changes.push(at);
      // The answer's text then (the last bubble's letters): a highlighter re-renders the same
      // text long after it is complete, and that is not the answer changing.
      const last = el.lastElementChild;
      t.lengths = t.lengths || [];
      t.lengths.push(last ? last.textContent.length : 0);
      if (pending) return;
      pending = true;
      // After the frame that shows it: the next frame's callback, then a task after its paint.
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          t.paints.push([t.changes.length, performance.now()]);
          pending = false;
        };
        ch.port2.postMessage(0);
      });
    }).observe(el, { subtree: true, childList: true, characterData: true });
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
}

/** The server's own figures in an OpenAI-style stream it sent: its metrics, and its comments. */
function serverTruth(body) {
  const out = {};
  for (const line of body.split('\n')) {
    if (line.startsWith(': ')) {
      for (const [, k, v] of line.matchAll(/(\w+)=([\d.]+)/g)) out[k] = Number(v);
      continue;
    }
    if (!line.startsWith('data: {')) continue;
    try {
      const e = JSON.parse(line.slice(6));
      const m = e.metrics || e.usage?.metrics;
      if (m) out.metrics = m;
      if (e.timings) out.timings = e.timings;
    } catch {
      /* not JSON */
    }
  }
  return out;
}

// --- the lab ----------------------------------------------------------------------------------

async function labCases() {
  const env = await setup({ nginx: true });
  const { SCENARIOS } = await scenarios(env);
  const names = Object.keys(SCENARIOS).filter((n) => n !== 'free' && (n !== 'proxy' || env.nginx));
  const run = async (page, name) => {
    const bodies = [];
    const onDone = async (req) => {
      if (!/\/v1\/chat\/completions/.test(req.url())) return;
      try {
        bodies.push(await (await req.response()).text());
      } catch {
        bodies.push(null);
      }
    };
    page.on('requestfinished', onDone);
    if (name) await page.click(`button[data-name="${name}"]`);
    const before = await page.evaluate(() => window.tokenpaintProfiler.reports().length) + (name === 'conversation' ? 1 : 0);
    const mark = await page.evaluate(() => window.__truth.changes.length);
    await page.click('#send');
    await page.waitForFunction(() => !document.getElementById('send').disabled, null, { timeout: 90000 });
    await page.waitForFunction((n) => window.tokenpaintProfiler.reports().length > n, before, { timeout: 30000 });
    await page.waitForTimeout(400);
    page.off('requestfinished', onDone);
    const got = await page.evaluate((m) => {
      const r = window.tokenpaintProfiler.reports().at(-1);
      const t = window.__truth;
      return { saved: r.saved, verdicts: r.diagnosis.map((v) => v.verdict), startTime: r.startTime, changes: t.changes.slice(m), lengths: (t.lengths || []).slice(m), paints: t.paints.filter(([n]) => n > m).map(([n, at]) => [n - m, at]) };
    }, mark);
    const last = bodies.filter(Boolean).at(-1) ?? '';
    return { ...got, server: serverTruth(last) };
  };
  const truthOf = (g) => {
    const s = g.startTime;
    const rel = (v) => (v == null ? null : Math.round((v - s) * 100) / 100);
    // The answer's last change on the page (the lab adds nothing to the chat after an answer) and
    // the paint after it.
    // The change that made the answer's text whole (its length final), and the paint after it.
    let whole = g.changes.length - 1;
    while (whole > 0 && g.lengths.length === g.changes.length && g.lengths[whole - 1] === g.lengths[whole]) whole--;
    const lastPaint = g.paints.find(([n]) => n > whole)?.[1];
    return {
      page: { changes: g.changes.length, firstChange: rel(g.changes.find((c) => c >= s)), lastChange: rel(g.changes[whole]), lastPaint: rel(lastPaint), rerendersAfter: g.changes.length - 1 - whole },
      server: g.server,
    };
  };
  // The highlighter's page is slow either way: stalled (a fast machine) or render-bound (the lab
  // test accepts both, tests/browser/lab.test.mjs).
  const expectOf = (name) => (name === 'highlighter' ? { oneOf: ['page-stall', 'client-render-bound'] } : { verdict: SCENARIOS[name].expect });
  const alone = {};
  /** A fresh lab page with the recorder's own truth installed before the lab's scripts. */
  const freshLab = async () => {
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.addInitScript(pageTruth, '#messages');
    await page.goto(env.url + '/');
    await page.waitForFunction(() => document.documentElement.dataset.lab === 'ready', null, { timeout: 30000 });
    return page;
  };
  // Scenarios on a loaded machine (LOADED=gzip,proxy,…: both cores kept busy by two spinning
  // processes; RUNS times each): each run's verdict printed, and the first run that does not name
  // the scenario's verdict kept as a case (else the first run).
  if (which.has('loaded')) {
    const spin = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    try {
      for (const name of (process.env.LOADED || 'gzip').split(',')) {
        let kept = null;
        let named = 0;
        const runs = Number(process.env.RUNS) || 5;
        for (let k = 0; k < runs; k++) {
          const page = await freshLab();
          const g = await run(page, name);
          await page.close();
          const ok = g.verdicts[0] === SCENARIOS[name].expect;
          if (ok) named++;
          console.log(`${name}, loaded, run ${k + 1}: ${g.verdicts.join(', ')}`);
          if (!kept || (!ok && kept.ok)) kept = { g, ok };
        }
        console.log(`${name}, loaded: ${named} of ${runs} runs name ${SCENARIOS[name].expect}`);
        const n = `lab-loaded-${name}`;
        save(n, { case: n, about: `the lab's "${SCENARIOS[name].label}" scenario on a fresh lab page, both cores kept busy by two other processes`, produced: produced({ server: "scripts/sim.mjs (the lab's simulated server)", knobs: SCENARIOS[name].knobs, load: 'two spinning processes at normal priority' }), expect: expectOf(name), truth: truthOf(kept.g), report: { verdicts: kept.g.verdicts }, saved: kept.g.saved });
      }
    } finally {
      for (const p of spin) p.kill();
    }
    if (!which.has('lab') && !which.has('pairs')) return env.close();
  }
  // The late-reading page (issue 59, item 2): the growing re-render and its fixed twin (the same
  // answer appended), side by side in one page, PAIRS times each, with the server's metrics and
  // without (the gain then paced by the arrivals alone); the first pair of each is kept.
  const pairs = Number(process.env.PAIRS) || 1;
  const setKnobs = (page, knobs) =>
    page.evaluate((o) => {
      for (const [k, v] of Object.entries(o)) {
        const el = document.getElementById(k);
        if (el.type === 'checkbox') el.checked = v;
        else el.value = v;
        el.dispatchEvent(new Event('change'));
      }
    }, knobs);
  // Third: a heavier re-render (5 ms → 15 ms per 1,000 characters) that falls far behind the
  // stream, with no server metrics: only the arrivals before it fell behind can pace the gain.
  for (const [metrics, heavy] of [[true, false], [false, false], [false, true]]) {
    let within = 0;
    for (let k = 0; k < pairs; k++) {
      const page = await freshLab();
      await page.click('button[data-name="growing"]');
      // (A knob changed puts the lab in free mode, which keeps the others.)
      if (!metrics) await setKnobs(page, { metrics: false });
      if (heavy) await setKnobs(page, { growCost: '15', tokens: '400' });
      const g = await run(page, null);
      await setKnobs(page, { render: 'append', growCost: '0' });
      const twin = await run(page, null);
      await page.close();
      const truth = truthOf(g);
      const twinTruth = truthOf(twin);
      const report = await analysed(g.saved);
      const gain = report.diagnosis.find((v) => v.gain)?.gain;
      const predicted = truth.page.lastPaint - (gain?.e2ePerceived ?? NaN);
      const off = (predicted - twinTruth.page.lastPaint) / twinTruth.page.lastPaint;
      if (Math.abs(off) <= 0.15) within++;
      console.log(`pair ${k + 1}${metrics ? '' : ' (no server metrics)'}${heavy ? ' (heavy)' : ''}: the whole-render page's last paint ${truth.page.lastPaint} ms, ${report.diagnosis[0].verdict}, gain ${gain?.e2ePerceived} (${gain?.basis}): predicted ${predicted.toFixed(0)} ms; the appending twin's ${twinTruth.page.lastPaint} ms (${(100 * off).toFixed(1)}%)`);
      if (k === 0) {
        const name = `lab-growing-pair${metrics ? '' : '-no-metrics'}${heavy ? '-heavy' : ''}`;
        save(name, { case: name, about: `the lab's "${SCENARIOS.growing.label}" (a whole-message re-render whose cost grows with the answer, reading late)${heavy ? ', three times as costly (15 ms per 1,000 characters), 400 deltas' : ''}${metrics ? '' : ', the server reporting no timings'}, with its appending twin sent next in the same page: the gain predicts the twin`, produced: produced({ server: "scripts/sim.mjs (the lab's simulated server)", knobs: { ...SCENARIOS.growing.knobs, metrics, ...(heavy ? { growCost: 15, tokens: 400 } : {}) }, twin: { render: 'append', growCost: 0 } }), expect: heavy ? { oneOf: ['client-render-growing', 'client-render-bound'] } : { verdict: SCENARIOS.growing.expect }, truth: { ...truth, twin: twinTruth.page }, report: { verdicts: g.verdicts }, saved: g.saved });
      }
    }
    console.log(`the late-reading page${metrics ? '' : ' (no server metrics)'}${heavy ? ' (heavy)' : ''}: the predicted perceived E2E within 15% of its twin's in ${within} of ${pairs} pairs`);
  }
  if (!which.has('lab')) return env.close();
  for (const name of names) {
    const page = await freshLab();
    const g = await run(page, name);
    alone[name] = g;
    save(`lab-${name}`, { case: `lab-${name}`, about: `the lab's "${SCENARIOS[name].label}" scenario, sent once on a fresh lab page`, produced: produced({ server: 'scripts/sim.mjs (the lab\'s simulated server)', knobs: SCENARIOS[name].knobs }), expect: expectOf(name), truth: truthOf(g), report: { verdicts: g.verdicts }, saved: g.saved });
    await page.close();
  }
  // One after another in one page, as a newcomer clicks them: the earlier answers stay.
  const page = await freshLab();
  const order = names.filter((n) => !['highlighter', 'conversation', 'queueing'].includes(n));
  for (const [i, name] of order.entries()) {
    const g = await run(page, name);
    if (i === 0) continue;
    save(`lab-after-${name}`, { case: `lab-after-${name}`, about: `the lab's "${SCENARIOS[name].label}" scenario, sent after ${order.slice(0, i).join(', ')} in the same lab page`, produced: produced({ server: 'scripts/sim.mjs (the lab\'s simulated server)', knobs: SCENARIOS[name].knobs, after: order.slice(0, i) }), expect: expectOf(name), truth: truthOf(g), report: { verdicts: g.verdicts }, saved: g.saved });
  }
  await page.close();
  await env.close();
}

let analyst = null;
/** A saved timeline analysed by this build (as the corpus test does). */
async function analysed(saved) {
  if (!analyst) analyst = await (await import('../js/analyse.js')).createAnalyst();
  return analyst.analyse(saved).report;
}

/** The lab's scenarios, as the lab's own module declares them. */
async function scenarios(env) {
  const page = await env.lab();
  const s = await page.evaluate(async () => {
    const m = await import('/www/app.js');
    return JSON.parse(JSON.stringify(m.SCENARIOS));
  });
  await page.close();
  return { SCENARIOS: s };
}

/** Each recorded real app (tests/recordings/, issue 58) replayed in Chromium with the injected script. */
async function appCases() {
  const { chromium } = await import('playwright-core');
  const { buildInject } = await import('./build-extension.mjs');
  const { CHROMIUM, ARGS } = await import('../tests/support/helpers.mjs');
  const { RECORDINGS, replay } = await import('../tests/support/replay.mjs');
  const { truthOf } = await import('../tests/support/truth.mjs');
  const inject = readFileSync(await buildInject(), 'utf8');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    for (const r of RECORDINGS) {
      const got = await replay(browser, inject, r, { saveTimeline: true });
      const x = got.reports[0];
      if (!x?.saved) {
        console.log(`${r.app}: no report (${got.reports.length})`);
        continue;
      }
      const own = truthOf(x, got.truth);
      save(`app-${r.app}`, {
        case: `app-${r.app}`,
        about: `${r.file.replace(/\.json$/, '')}'s recorded answer replayed in Chromium, read ${x.read.by}${x.read.format ? ` (${x.read.format})` : ''}`,
        produced: produced({ app: `tests/recordings/${r.file} (recorded by scripts/record-app.mjs from the app installed from PyPI)` }),
        expect: { notVerdicts: ['intermediary-buffered', 'server-buffered', 'provider-bursts'] },
        truth: { page: { firstText: own.firstText, firstPaint: own.firstPaint, lagP50: own.lagP50, shown: own.shown, records: own.records } },
        report: { verdicts: x.diagnosis.map((v) => v.verdict) },
        saved: x.saved,
      });
    }
  } finally {
    await browser.close();
  }
}

if (which.has('lab') || which.has('pairs') || which.has('loaded')) await labCases();
if (which.has('apps')) await appCases();
if (which.has('llama')) {
  // A real llama-server: built once (about 16 minutes on 2 cores), then its own check writes the
  // first run's sessions here.
  const dir = execSync('bash scripts/real-apps/build-llama-server.sh', { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const env = { ...process.env, CORPUS: OUT, LLAMA_DIR: dir, TOKENPAINT_VERSION: `${pkg.version} (${commit})` };
  execSync('node tests/realapps/llama.mjs queue decode', { cwd: root, stdio: 'inherit', env: { ...env, RUNS: '3' } });
  // Again with both cores kept busy by two spinning processes at normal priority, as a loaded
  // machine is: the runs that push the server's clock furthest from the page's are kept.
  const spin = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  try {
    execSync('node tests/realapps/llama.mjs queue decode', { cwd: root, stdio: 'inherit', env: { ...env, RUNS: '6', LOADED: '1' } });
  } finally {
    for (const p of spin) p.kill();
  }
}
process.exit(0);
