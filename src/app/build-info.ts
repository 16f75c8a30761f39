/**
 * Build facts for the version document: from dist/build-info.json written at build time, else from package.json
 * (a development checkout run through tsx).
 */
import { readFileSync } from 'node:fs';
import type { BuildInfo } from '../services/controllers/version.js';

export function readBuildInfo(): BuildInfo {
  for (const candidate of ['../build-info.json', '../../dist/build-info.json']) {
    try {
      return JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as BuildInfo;
    } catch {
      // not built from here; try the next place
    }
  }
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return { version: pkg.version, revision: 'development', buildDate: 'unknown' };
}
