#!/usr/bin/env node
// Writes dist/build-info.json (version, git revision, build date) for the version document.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
let revision = 'unknown';
try {
  revision = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
} catch {
  // not a git checkout (e.g. an unpacked tarball)
}
writeFileSync(new URL('dist/build-info.json', root), `${JSON.stringify({ version, revision, buildDate: new Date().toISOString() }, null, 2)}\n`);
