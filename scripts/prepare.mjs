#!/usr/bin/env node
// The `prepare` step (run by `npm ci` and `npm install`): builds dist/ only when the sources changed since the last
// build (`npm run build` always builds), and links node_modules/.bin/svc to bin/svc.js. That link is what makes
// `npx svc` quick: npm runs a command it finds in node_modules/.bin directly, whereas for a package.json `bin` of the
// project itself npm 10+ installs the checkout into its npx cache and reads the whole dependency tree on every call
// (about 1 s idle, 10-17 s on a loaded machine; decision 0078). So package.json has no `bin` and this step links it.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stampFile = join(root, 'dist', '.sources-hash');

/** One hash over everything the build reads: the sources, the compiler settings, package.json and the git revision. */
function sourcesHash() {
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path));
    }
  };
  visit(join(root, 'src'));
  visit(join(root, 'console'));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'scripts/build-console.mjs']) hash.update(`${file}\0`).update(readFileSync(join(root, file)));
  try {
    hash.update(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    // not a git checkout (an unpacked tarball): the sources alone decide
  }
  return hash.digest('hex');
}

/** node_modules/.bin/svc -> ../../bin/svc.js, made or mended (a stale file or link in its place is replaced). */
function linkCommand() {
  const binDir = join(root, 'node_modules', '.bin');
  const link = join(binDir, 'svc');
  const target = join('..', '..', 'bin', 'svc.js');
  if (!existsSync(join(root, 'node_modules'))) return;
  mkdirSync(binDir, { recursive: true });
  let present = false;
  try {
    present = lstatSync(link).isSymbolicLink() && readlinkSync(link) === target;
    if (!present) unlinkSync(link);
  } catch {
    // nothing there yet
  }
  if (!present) symlinkSync(target, link);
}

linkCommand();
const current = sourcesHash();
if (existsSync(join(root, 'dist', 'cli', 'main.js')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === current) {
  console.error('svc: dist/ is up to date with src/; not building again');
  process.exit(0);
}
console.error('svc: building dist/ from src/ (takes a few seconds)…');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const args of [[tsc, '-p', 'tsconfig.build.json'], [join(root, 'scripts', 'build-info.mjs')], [join(root, 'scripts', 'build-console.mjs')]]) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
writeFileSync(stampFile, `${current}\n`);
