// Runs the shell commands of the README and of docs/guides/*.md, so that no printed command goes stale
// (docs/decisions/0077-guides-whose-commands-run.md). Used by `node scripts/guides.mjs` and by
// test/e2e/guides.test.ts (part of `npm test`).
//
// What a guide may say, as an HTML comment on the line before a fenced block (invisible when the page is rendered):
//   <!-- guide: not run: REASON -->        the block is shown, not run; the reason is required
//   <!-- guide: fails -->                  the block must exit non-zero (a refusal the guide shows)
//   <!-- guide: background until "TEXT" --> the block runs in the background (a controller, a router, svc tunnel);
//                                          the next block starts once its output holds TEXT; it is stopped at the end
//   <!-- guide: output -->                 (before a ```text block) every line of it must appear in the output of
//                                          the shell block just above, white space aside
//   <!-- guide: setup -->                  (README only) the block is also run before the blocks of every guide that
//                                          says <!-- guide: needs setup --> (anywhere in it): the walk's quickstart
//                                          and login, so the guides need not repeat them
// Every ```sh block is run unless marked "not run"; a fenced block with no language, or with bash/shell/console, is
// refused, so a command cannot slip past the runner by being fenced differently.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, symlinkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const MARKER = /^<!--\s*guide:\s*(.*?)\s*-->\s*$/;
const SHELL_ALIASES = new Set(['bash', 'shell', 'console', 'zsh', 'shell-session']);

/** The README and the guides, in the order they are run (the README first: it is the front door). */
export function guideFiles(root) {
  const dir = join(root, 'docs', 'guides');
  const guides = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.md')).sort().map((f) => join(dir, f)) : [];
  return [join(root, 'README.md'), ...guides];
}

/**
 * The fenced blocks of a Markdown text with their markers: `{ lang, body, line, marker }`, `line` being the 1-based
 * line of the opening fence. Problems (a block with no language, an unknown marker) are returned, not thrown, so that
 * one run names them all.
 */
export function parseGuide(text, file) {
  const lines = text.split('\n');
  const blocks = [];
  const problems = [];
  let needsSetup = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const fence = /^(\s*)(```+|~~~+)\s*([^\s`]*)\s*$/.exec(raw);
    const markerHere = MARKER.exec(raw.trim());
    if (markerHere && markerHere[1] === 'needs setup') needsSetup = true;
    if (!fence) continue;
    const [, indent, ticks, lang] = fence;
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      if (lines[j].trim().startsWith(ticks) && lines[j].trim().replace(/[`~]/g, '') === '') break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    const where = `${file}:${i + 1}`;
    // The marker lines right above the fence (a block may be both setup and background).
    let marker;
    let setup = false;
    for (let k = i - 1; k >= 0; k--) {
      const found = MARKER.exec(lines[k].trim());
      if (!found) break;
      const read = readMarker(found[1]);
      if (read?.problem) problems.push(`${file}:${k + 1}: ${read.problem}`);
      else if (read?.kind === 'setup') setup = true;
      else if (read && marker) problems.push(`${file}:${k + 1}: two markers on one block`);
      else if (read) marker = read;
    }
    if (lang === '') problems.push(`${where}: a fenced block without a language: say sh (run), text, yaml, json, …`);
    else if (SHELL_ALIASES.has(lang)) problems.push(`${where}: a ${lang} block: write sh, so that the runner runs it`);
    if (marker?.kind === 'output' && (lang !== 'text' || blocks.at(-1)?.lang !== 'sh'))
      problems.push(`${where}: "output" marks a text block right after an sh block`);
    blocks.push({ lang, body: body.join('\n'), line: i + 1, marker, setup });
    i = j;
  }
  return { file, blocks, problems, needsSetup };
}

function readMarker(text) {
  const notRun = /^not run:\s*(.*)$/.exec(text);
  if (notRun) return notRun[1] ? { kind: 'not run', reason: notRun[1] } : { problem: '"not run" needs a reason after the colon' };
  const background = /^background until "(.+)"$/.exec(text);
  if (background) return { kind: 'background', until: background[1] };
  if (text === 'fails' || text === 'output' || text === 'setup') return { kind: text };
  if (text === 'needs setup') return undefined;
  return { problem: `unknown guide marker '${text}': not run: REASON, fails, background until "TEXT", output, setup` };
}

/** The shell blocks to run, each with the output its guide shows after it (or none). */
export function runnableSteps(parsed) {
  const steps = [];
  parsed.blocks.forEach((block, index) => {
    if (block.lang !== 'sh' || block.marker?.kind === 'not run') return;
    const next = parsed.blocks[index + 1];
    const shows = next?.marker?.kind === 'output' ? next.body : undefined;
    steps.push({ ...block, file: parsed.file, shows });
  });
  return steps;
}

const normalise = (s) => s.replace(/\s+/g, ' ').trim();

/** The lines of `shows` that `output` does not hold (white space collapsed on both sides). */
export function missingLines(shows, output) {
  const have = normalise(output);
  return shows.split('\n').map(normalise).filter((line) => line !== '' && !have.includes(line));
}

/**
 * The bash script of one guide: every step in order in one shell (so variables carry from block to block, as in a
 * reader's terminal), each block's output kept in its own file; background blocks in their own process group,
 * stopped by the EXIT trap.
 */
function scriptOf(steps, work) {
  const out = [
    'set -euo pipefail',
    'set -m', // each background block gets its own process group, so stopping it stops what it started
    '__bg=()',
    `__stop() { for p in "\${__bg[@]}"; do kill -TERM -- -"$p" 2>/dev/null || true; done;`,
    '  for p in "${__bg[@]}"; do for _ in $(seq 1 100); do kill -0 -- -"$p" 2>/dev/null || break; sleep 0.1; done;',
    '  kill -KILL -- -"$p" 2>/dev/null || true; done; }',
    'trap __stop EXIT',
    `__wait() { local log=$1 text=$2 pid=$3; for _ in $(seq 1 1200); do grep -qF -- "$text" "$log" && return 0;`,
    '  kill -0 "$pid" 2>/dev/null || { echo "the background block stopped before printing: $text" >&2; return 1; }; sleep 0.1; done;',
    '  echo "no \\"$text\\" from the background block within 120 s" >&2; return 1; }',
  ];
  steps.forEach((step, n) => {
    const log = join(work, `.guide-step-${n}.out`);
    out.push(`echo ${n} > ${join(work, '.guide-step')}`);
    const kind = step.marker?.kind;
    if (kind === 'background') {
      out.push(`{\n${step.body}\n} > ${log} 2>&1 &`, '__bg+=($!)', `__wait ${log} ${shellQuote(step.marker.until)} $!`);
    } else if (kind === 'fails') {
      out.push('set +e', `( set -e\n${step.body}\n) > ${log} 2>&1`, '__rc=$?', 'set -e',
        `if [ $__rc -eq 0 ]; then echo "the block was to fail, and succeeded" >> ${log}; exit 97; fi`);
    } else {
      out.push(`{\n${step.body}\n} > ${log} 2>&1`);
    }
  });
  out.push(`echo done > ${join(work, '.guide-step')}`);
  return out.join('\n') + '\n';
}

/** Every process under `pid` (Linux `ps`), deepest last. */
function descendants(pid) {
  const rows = spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout ?? '';
  const children = new Map();
  for (const row of rows.trim().split('\n')) {
    const [p, parent] = row.trim().split(/\s+/).map(Number);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(p);
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

const shellQuote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Whether `unshare -rn` works here: each guide then gets a network of its own, so 1280, 6262, … are always free. */
let ownNetwork;
export function canUnshare() {
  ownNetwork ??= spawnSync('unshare', ['-rn', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' }).status === 0;
  return ownNetwork;
}

/**
 * Runs one guide in a fresh home and working folder (removed afterwards), with `svc` on the PATH as `svcCommand`
 * (an array: the program and its first arguments). Resolves `{ file, ok, failure?, steps, ms }`; `failure` names the
 * block (file:line), what went wrong and the end of its output.
 */
export async function runGuide(parsed, { root, svcCommand, setupSteps = [], keep = false, timeoutMs = 600_000 }) {
  const started = Date.now();
  const base = mkdtempSync(join(tmpdir(), 'svc-guide-'));
  const home = join(base, 'home');
  const work = join(base, 'work');
  const bin = join(base, 'bin');
  for (const dir of [home, work, bin]) mkdirSync(dir);
  // The guides name the checkout's files as a reader in the checkout does (docs/examples/router.yml): the working
  // folder shows docs/ as it is there.
  symlinkSync(join(root, 'docs'), join(work, 'docs'));
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec ${svcCommand.map(shellQuote).join(' ')} "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  const steps = [...(parsed.needsSetup ? setupSteps : []), ...runnableSteps(parsed)];
  writeFileSync(join(base, 'guide.sh'), scriptOf(steps, work));
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: home,
    TMPDIR: base,
    LANG: 'C.UTF-8',
    SVC_CHECKOUT: root,
    ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
  };
  const script = join(base, 'guide.sh');
  const [program, args] = canUnshare()
    ? ['unshare', ['-rn', 'bash', '-c', `ip link set lo up && exec bash ${shellQuote(script)}`]]
    : ['bash', [script]];
  const result = await new Promise((resolve) => {
    const child = spawn(program, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    // Past the time limit the shell may be waiting on a block, with signals deferred: kill it and everything under it
    // (the background blocks are in process groups of their own, so a group kill would miss them).
    const timer = setTimeout(() => {
      for (const pid of [...descendants(child.pid), child.pid]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
  const reached = readIf(join(work, '.guide-step')).trim();
  const report = { file: relative(root, parsed.file), steps: steps.length, ms: Date.now() - started, ok: true };
  if (result.code !== 0 || reached !== 'done') {
    const n = Number(reached);
    const step = steps[n];
    const tail = (step ? readIf(join(work, `.guide-step-${n}.out`)) : '') + result.output;
    report.ok = false;
    report.failure = step
      ? `${relative(root, step.file)}:${step.line}: the block ${result.signal ? `was killed (${result.signal})` : `exited ${result.code}`}\n${indent(step.body)}\n--- its output (end) ---\n${lastLines(tail, 40)}`
      : `the guide's shell exited ${result.code} before its first block\n${lastLines(result.output, 40)}`;
  } else {
    for (const [n, step] of steps.entries()) {
      if (step.shows === undefined) continue;
      const output = readIf(join(work, `.guide-step-${n}.out`));
      const missing = missingLines(step.shows, output);
      if (missing.length > 0) {
        report.ok = false;
        report.failure = `${relative(root, step.file)}:${step.line}: the output the guide shows is not what the block printed; missing:\n${missing.map((l) => `  ${l}`).join('\n')}\n--- its output ---\n${lastLines(output, 40)}`;
        break;
      }
    }
  }
  if (!keep) rmSync(base, { recursive: true, force: true });
  else report.kept = base;
  return report;
}

const readIf = (path) => (existsSync(path) ? readFileSync(path, 'utf8') : '');
const indent = (s) => s.split('\n').map((l) => `  | ${l}`).join('\n');
const lastLines = (s, n) => s.split('\n').slice(-n).join('\n');

/** The README's setup blocks (the walk's quickstart and login), run first by the guides that need them. */
export function setupSteps(readme) {
  return runnableSteps(readme).filter((step) => step.setup);
}

/** Every guide, parsed. */
export function loadGuides(root) {
  return guideFiles(root).map((file) => parseGuide(readFileSync(file, 'utf8'), file));
}
