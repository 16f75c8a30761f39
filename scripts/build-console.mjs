#!/usr/bin/env node
// Builds the web console (console/, decision 0079) into dist/console/: one JavaScript bundle and one stylesheet,
// minified, named by their content hash (so the controller serves them as immutable), and the index.html that loads
// them. esbuild does it in well under a second, so `npm run build`, `prepare` and the test runner all call it.
// Usage: node scripts/build-console.mjs [--out DIR] [--metafile]
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds into `out` (default dist/console) and returns the sizes of what a first load transfers. */
export async function buildConsole({ out = join(root, 'dist', 'console'), metafile = false } = {}) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'assets'), { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: 'console/src/main.tsx' },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: join(out, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file' },
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs);
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error('the console build produced no script or no stylesheet');
  const html = readFileSync(join(root, 'console', 'index.html'), 'utf8')
    .replace('%SCRIPT%', `/console/assets/${basename(script)}`)
    .replace('%STYLE%', `/console/assets/${basename(style)}`);
  writeFileSync(join(out, 'index.html'), html);
  if (metafile) writeFileSync(join(out, 'meta.json'), JSON.stringify(result.metafile));
  const size = (file) => readFileSync(join(root, file)).length;
  return { script: basename(script), style: basename(style), scriptBytes: size(script), styleBytes: size(style), htmlBytes: html.length };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outIndex = process.argv.indexOf('--out');
  const sizes = await buildConsole({ ...(outIndex > 0 ? { out: process.argv[outIndex + 1] } : {}), metafile: process.argv.includes('--metafile') });
  console.log(`console: ${sizes.script} ${sizes.scriptBytes} B, ${sizes.style} ${sizes.styleBytes} B, index.html ${sizes.htmlBytes} B`);
}
