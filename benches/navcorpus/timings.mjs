#!/usr/bin/env node
// The `open` and `click #go` wall times of a navigation-corpus run, side by side, as Markdown for
// BENCHMARKS.md: one row per pattern that has those steps, each binary's time in ms (one sample
// per step and side; a failing step is marked ✗), and a count of the patterns where abx took more
// than `--slack` ms (default 5) longer than upstream on the same Chrome.
//
//   node benches/navcorpus/timings.mjs [target/navcorpus/navcorpus.json] [--slack 5]

import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const slackAt = args.indexOf('--slack');
const slack = slackAt >= 0 ? Number(args[slackAt + 1]) : 5;
const file = args.find((a, i) => !a.startsWith('--') && (slackAt < 0 || i !== slackAt + 1))
  ?? 'target/navcorpus/navcorpus.json';
const run = JSON.parse(readFileSync(file, 'utf8'));

const STEPS = [
  { name: 'open', pick: (s) => s.label === 'open' },
  { name: 'click', pick: (s) => s.label.startsWith('click #go') },
];
const KINDS = ['full', 'shell'];

const fmt = (r) => (r ? `${r.ms}${r.ok === false || r.timedOut ? ' ✗' : ''}` : '–');

const lines = [];
const slower = { open: [], click: [] };
const ratios = { open: [], click: [] };
for (const row of run.rows) {
  const cells = [];
  let any = false;
  for (const step of STEPS) {
    const found = row.steps.find((s) => !s.setup && step.pick(s));
    for (const kind of KINDS) {
      const up = found?.results?.[`upstream-${kind}`];
      const abx = found?.results?.[`abx-${kind}`];
      cells.push(`${fmt(up)} / ${fmt(abx)}`);
      if (up && abx) {
        any = true;
        // Only answers that finished are compared (a step killed at the limit says nothing).
        if (!up.timedOut && !abx.timedOut) {
          ratios[step.name].push(abx.ms / Math.max(up.ms, 1));
          if (abx.ms > up.ms + slack) slower[step.name].push(`${row.id} (${kind}: ${abx.ms} against ${up.ms})`);
        }
      }
    }
  }
  if (any) lines.push(`| ${row.id} | ${cells.join(' | ')} |`);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

console.log(`Run ${run.startedAt}, ${run.machine}; abx ${run.abx.version} (${run.abx.commit ?? '?'}, ${run.abx.profile ?? '?'}); ${run.upstream?.version ?? 'upstream'}. One sample per step and side, wall time at the shell in ms, upstream / abx; ✗ marks a failing answer (see docs/navigation-corpus.md for what each printed).\n`);
console.log('| pattern | `open`, full | `open`, shell | `click #go`, full | `click #go`, shell |');
console.log('|---|---|---|---|---|');
for (const line of lines) console.log(line);
console.log('');
for (const step of ['open', 'click']) {
  console.log(`- \`${step}\`: median abx ÷ upstream ${median(ratios[step]).toFixed(2)} over ${ratios[step].length} pattern×Chrome pairs; abx more than ${slack} ms slower: ${slower[step].length ? slower[step].join(', ') : 'none'}.`);
}
