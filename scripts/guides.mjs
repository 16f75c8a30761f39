#!/usr/bin/env node
// `node scripts/guides.mjs [FILE.md…] [--keep]`: runs the shell blocks of the README and of docs/guides/*.md in order,
// each guide in a fresh home (docs/decisions/0077-guides-whose-commands-run.md; test/e2e/guides.test.ts runs the same
// in `npm test`). `svc` is the checkout's: bin/svc.js over dist/ when built, else the sources through tsx.
// --keep leaves each guide's temporary folder (its home, working folder and every block's output) for a look.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadGuides, runGuide, setupSteps } from './guides/runner.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const only = args.filter((a) => !a.startsWith('--')).map((a) => resolve(a));
const svcCommand = existsSync(join(root, 'dist', 'cli', 'main.js'))
  ? [process.execPath, join(root, 'bin', 'svc.js')]
  : [process.execPath, '--import', import.meta.resolve('tsx'), join(root, 'test', 'helpers', 'svc-cli.ts')];

const guides = loadGuides(root);
const problems = guides.flatMap((g) => g.problems);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
const setup = setupSteps(guides[0]);
let failed = 0;
for (const guide of guides) {
  if (only.length > 0 && !only.includes(guide.file)) continue;
  const report = await runGuide(guide, { root, svcCommand, setupSteps: setup, keep });
  console.log(`${report.ok ? 'ok' : 'FAILED'}  ${report.file}: ${report.steps} blocks in ${(report.ms / 1000).toFixed(1)} s${report.kept ? ` (kept in ${report.kept})` : ''}`);
  if (!report.ok) {
    failed++;
    console.log(report.failure);
  }
}
process.exit(failed > 0 ? 1 : 0);
