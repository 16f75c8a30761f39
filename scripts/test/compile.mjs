// The suite compiled once (scripts/test.mjs): tsc emits src/ and test/ as JavaScript into a temporary folder, so
// that each test process loads plain JS instead of transforming every TypeScript module through tsx (about 2 s per
// test file). The folder mirrors the checkout:
//   <tmp>/src/**, <tmp>/test/**     the emitted .js with .js.map next to it (sourceRoot = the checkout, so with
//                                   --enable-source-maps stack traces name the real .ts files and lines);
//   every other file of src/ and test/ (the .ts sources, test/fixtures/**) as a symlink to the real file, so code
//                                   that finds files next to itself through import.meta.url still finds them
//                                   (fixtures, the .ts sources test-hygiene reads, helpers/svc-cli.ts that
//                                   helpers/cli.ts runs through tsx);
//   <tmp>/package.json, <tmp>/node_modules, <tmp>/dist
//                                   symlinks to the checkout's: "type": "module" and the version for the JS, the
//                                   dependencies, and dist/build-info.json when built (src/app/build-info.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The folders of the checkout that are compiled and mirrored. */
const TREES = ['src', 'test'];

/**
 * Compiles the project (tsconfig.json: src, test and scripts) into a new temporary folder. `check: true` type-checks
 * in the same tsc run (the typecheck of a full run); `check: false` only emits (--noCheck). Resolves with the folder,
 * tsc's exit status and its output (the type errors), and `remove()`; tsc's output is not printed here.
 */
export function compileSuite(root, { check }) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-js-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  const args = [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(root, 'tsconfig.json'),
    '--outDir',
    dir,
    '--rootDir',
    root,
    '--sourceMap',
    '--sourceRoot',
    pathToFileURL(root).href.replace(/\/?$/, '/'),
    '--declaration',
    'false',
    '--noEmitOnError',
    'false',
    '--incremental',
    'false',
    '--pretty',
    process.stdout.isTTY ? 'true' : 'false',
    ...(check ? [] : ['--noCheck']),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      mirror(root, dir);
      resolve({ dir, status: code ?? 1, output, remove });
    });
  });
}

/** Symlinks into `dir` every file of the checkout's src/ and test/ that tsc did not write, and the top-level links. */
function mirror(root, dir) {
  const link = (target, path) => {
    if (existsSync(path)) return;
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(target, path);
  };
  const walk = (path) => {
    for (const entry of readdirSync(path)) {
      const source = join(path, entry);
      if (statSync(source).isDirectory()) walk(source);
      else link(source, join(dir, relative(root, source)));
    }
  };
  for (const tree of TREES) if (existsSync(join(root, tree))) walk(join(root, tree));
  // docs/: tests read its examples (docs/examples) to keep them valid.
  for (const top of ['package.json', 'node_modules', 'dist', 'docs', 'bin']) if (existsSync(join(root, top))) link(join(root, top), join(dir, top));
}

/** Where the compiled form of the checkout file `file` (a .ts test file) is in `dir`. */
export function compiledPath(root, dir, file) {
  return join(dir, relative(root, file)).replace(/\.ts$/, '.js');
}
