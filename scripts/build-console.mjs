#!/usr/bin/env node
// Builds the web console (console/, decision 0079) into dist/console/: one JavaScript bundle and one stylesheet,
// minified, named by their content hash (so the controller serves them as immutable), and the index.html that loads
// them. esbuild does it in well under a second, so `npm run build`, `prepare` and the test runner all call it.
// Each text file also gets its brotli (.br) and gzip (.gz) forms here, once: the controller serves them as they are
// and never compresses at start (brotli at its best quality costs seconds of CPU, which every controller start, every
// test file included, paid when the controller did it).
// Usage: node scripts/build-console.mjs [--out DIR] [--metafile]
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What is worth compressing; source maps get a quicker brotli (they are fetched by developer tools only). */
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.map', '.svg', '.txt']);

/** Writes FILE.br and FILE.gz beside every compressible file in `dir` (not below it). */
function precompress(dir) {
  for (const name of readdirSync(dir)) {
    const extension = extname(name);
    if (!COMPRESSIBLE.has(extension)) continue;
    const body = readFileSync(join(dir, name));
    const quality = extension === '.map' ? 6 : constants.BROTLI_MAX_QUALITY;
    writeFileSync(join(dir, `${name}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: quality } }));
    writeFileSync(join(dir, `${name}.gz`), gzipSync(body, { level: 9 }));
  }
}

/** Builds into `out` (default dist/console) and returns the sizes of what a first load transfers. */
export async function buildConsole({ out: target = join(root, 'dist', 'console'), metafile = false } = {}) {
  // Built beside the target and swapped in whole at the end: a controller starting meanwhile (a test of the suite
  // while a test of the runner rebuilds) reads the old build or the new one, never a folder half removed or half
  // written. The same sources give the same hashed names, so old and new serve alike.
  const out = `${target}.building-${process.pid}`;
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
  precompress(join(out, 'assets'));
  precompress(out);
  const size = (file) => readFileSync(join(root, file)).length;
  const sizes = { script: basename(script), style: basename(style), scriptBytes: size(script), styleBytes: size(style), htmlBytes: html.length };
  const previous = `${target}.previous-${process.pid}`;
  // Two builds at once (two runners) race here: whichever swaps last wins, and both builds are the same.
  const tolerating = (codes, step) => {
    try {
      step();
    } catch (error) {
      if (!codes.includes(error.code)) throw error;
    }
  };
  tolerating(['ENOENT'], () => renameSync(target, previous));
  tolerating(['ENOTEMPTY', 'EEXIST'], () => renameSync(out, target));
  rmSync(out, { recursive: true, force: true });
  rmSync(previous, { recursive: true, force: true });
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outIndex = process.argv.indexOf('--out');
  const sizes = await buildConsole({ ...(outIndex > 0 ? { out: process.argv[outIndex + 1] } : {}), metafile: process.argv.includes('--metafile') });
  console.log(`console: ${sizes.script} ${sizes.scriptBytes} B, ${sizes.style} ${sizes.styleBytes} B, index.html ${sizes.htmlBytes} B`);
}
