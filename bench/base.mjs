// tokenpaint's own main-thread time against a named base commit, side by side in one run
// (issue 61): the base is built in a clone of its own (target/bench-base/<commit>, kept for the
// next run), and each round profiles this tree's build, then the base's, with bench/profile.mjs's
// runProfile from each tree (each serving its own js/ and pkg/). Prints each round, the medians
// and the ratio this/base; exits 0 either way (figures, not behaviour).
// Usage: npm run bench:base -- <commit> (default 277578c: before issues 47-50), or
//        BASE=<commit> ROUNDS=3 TOKENS=6000 node bench/base.mjs
// A change to the hot path that raises the own time by more than 5% against its base says so in
// its issue note, with the reason.
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from '../tests/support/helpers.mjs';
import { runProfile } from './profile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** The base's tree, built: cloned from this repository at `commit`, its node_modules this one's. */
export function baseTree(commit, log = console.log) {
  const sha = git(root, 'rev-parse', '--verify', `${commit}^{commit}`);
  const dir = path.join(root, 'target', 'bench-base', sha.slice(0, 12));
  if (!existsSync(path.join(dir, 'pkg', 'tokenpaint_core_bg.wasm'))) {
    log(`building the base ${sha.slice(0, 12)} in ${path.relative(root, dir)} (cargo, wasm-bindgen, wasm-opt: minutes the first time)`);
    if (!existsSync(dir)) {
      execFileSync('git', ['clone', '-q', '--shared', '--no-checkout', root, dir]);
      git(dir, 'checkout', '-q', sha);
    }
    if (!existsSync(path.join(dir, 'node_modules'))) symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    execFileSync('bash', ['scripts/build.sh'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  return { sha, dir };
}

/**
 * `rounds` rounds, each this tree's profile then the base's (one round each, `tokens` tokens).
 * Returns the rows and the medians of own time, floor, parse and own-on-top-of-the-floor, and
 * each tree's entry points.
 */
export async function runBase({ commit = '277578c', rounds = 3, tokens = 6000, log = console.log } = {}) {
  const base = baseTree(commit, log);
  const { runProfile: baseProfile } = await import(pathToFileURL(path.join(base.dir, 'bench', 'profile.mjs')).href);
  const head = git(root, 'rev-parse', '--short=12', 'HEAD') + (git(root, 'status', '--porcelain', '--', 'js', 'src', 'crates') ? ' (with changes)' : '');
  const rows = { this: [], base: [] };
  const quiet = () => {};
  for (let k = 0; k < rounds; k++) {
    for (const [name, run] of [['this', runProfile], ['base', baseProfile]]) {
      const r = await run({ rounds: 1, tokens, log: quiet });
      rows[name].push(r);
      log(`round ${k + 1}, ${name === 'this' ? head : base.sha.slice(0, 12)}: own ${r.own.toFixed(1)} ms, floor ${r.floor.toFixed(1)} ms, parse ${r.parse.toFixed(1)} ms: on top of the floor ${r.onFloor.toFixed(3)}×${r.matched === undefined ? '' : `, matched ${r.matched}%`}`);
    }
  }
  const sum = (list) => {
    const names = [...new Set(list.flatMap((r) => r.parts.map((p) => p.name)))];
    return {
      own: median(list.map((r) => r.own)),
      floor: median(list.map((r) => r.floor)),
      parse: median(list.map((r) => r.parse)),
      onFloor: median(list.map((r) => r.onFloor)),
      onFloors: list.map((r) => r.onFloor),
      matched: list.every((r) => r.matched !== undefined) ? Math.min(...list.map((r) => r.matched)) : null,
      within: Object.fromEntries([...new Set(list.flatMap((r) => Object.keys(r.within || {})))].map((name) => [name, median(list.map((r) => r.within?.[name] || 0))])),
      parts: names.map((name) => ({ name, ms: median(list.map((r) => r.parts.find((p) => p.name === name)?.ms || 0)) })).sort((a, b) => b.ms - a.ms),
    };
  };
  return { head, base: base.sha, tokens, rounds, this: sum(rows.this), baseline: sum(rows.base) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runBase({ commit: process.argv[2] || process.env.BASE || '277578c', rounds: Number(process.env.ROUNDS || 3), tokens: Number(process.env.TOKENS || 6000) });
  const line = (name, s) => `${name.padEnd(22)} own ${s.own.toFixed(1).padStart(7)} ms, floor ${s.floor.toFixed(1).padStart(6)}, parse ${s.parse.toFixed(1).padStart(6)}: on top of the floor ${s.onFloor.toFixed(3)}× (rounds ${s.onFloors.map((x) => x.toFixed(3)).join(', ')})${s.matched === null ? '' : `, matched ${s.matched}%`}`;
  console.log(`\n${r.tokens} tokens, median of ${r.rounds} rounds`);
  console.log(line(r.head, r.this));
  console.log(line(r.base.slice(0, 12), r.baseline));
  console.log(`this / base: own ${(r.this.own / r.baseline.own).toFixed(3)}×, on top of the floor ${(r.this.onFloor / r.baseline.onFloor).toFixed(3)}×`);
  for (const [name, s] of [[r.head, r.this], [r.base.slice(0, 12), r.baseline]]) {
    console.log(`entry points, ${name}:`);
    for (const p of s.parts.slice(0, 10)) console.log(`  ${p.ms.toFixed(1).padStart(7)} ms  ${p.name}`);
  }
  const meter = Object.entries(r.this.within).filter(([name]) => /frames\.js:.*count/.test(name));
  console.log(`the frame meter's own function: ${meter.map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`).join(', ') || 'not sampled'}`);
}
