/**
 * The README and docs/guides/*.md: every shell block is run, in order, in a fresh home against its own quickstart
 * controller, and prints what the guide shows after it (scripts/guides/runner.mjs, docs/decisions/0077). A block that
 * cannot run carries a marker with its reason; a block fenced so as to escape the runner is refused. The runner's own
 * behaviour (failures named by file and line, expected failures, output checks, background steps stopped) is checked
 * on small guides written here.
 *
 * @store-independent: the guides talk to quickstart controllers on their embedded SQLite, whatever the store under test.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The checkout (the test runner's working folder), not this file's: a compiled run executes this file from a mirror.
const root = process.cwd();

interface Parsed {
  file: string;
  blocks: { lang: string; line: number; marker?: { kind: string } }[];
  problems: string[];
  needsSetup: boolean;
}
interface Report {
  file: string;
  ok: boolean;
  failure?: string;
  steps: number;
  ms: number;
  kept?: string;
}
interface Runner {
  loadGuides(root: string): Parsed[];
  parseGuide(text: string, file: string): Parsed;
  setupSteps(readme: Parsed): unknown[];
  canUnshare(): boolean;
  runGuide(
    parsed: Parsed,
    options: { root: string; svcCommand: string[]; setupSteps?: unknown[]; keep?: boolean; timeoutMs?: number },
  ): Promise<Report>;
}
const runner = (await import(pathToFileURL(join(root, 'scripts', 'guides', 'runner.mjs')).href)) as Runner;

// `svc` for the guides: the CLI as the other CLI tests run it (test/helpers/cli.ts): compiled JS in a compiled run,
// else the sources through tsx.
const compiled = import.meta.url.endsWith('.js');
const entry = fileURLToPath(new URL(compiled ? '../helpers/svc-cli.js' : '../helpers/svc-cli.ts', import.meta.url));
const svcCommand = compiled
  ? [process.execPath, '--enable-source-maps', entry]
  : [process.execPath, '--import', import.meta.resolve('tsx'), entry];

const guides = runner.loadGuides(root);
const readme = guides[0]!;
const setup = runner.setupSteps(readme);

describe('the README and the guides', () => {
  it('are the README and one guide per subject under docs/guides', () => {
    const names = guides.slice(1).map((g) => relative(root, g.file));
    for (const guide of ['cli', 'controller', 'routers', 'clients', 'apis', 'security', 'performance', 'development'])
      assert.ok(names.includes(`docs/guides/${guide}.md`), `docs/guides/${guide}.md is missing (have ${names.join(', ')})`);
  });

  it('keep the README a front door: at most 300 lines, the two commands, the PATH line, and a link to every guide and reference page', () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    const lines = text.trimEnd().split('\n').length;
    assert.ok(lines <= 300, `README.md has ${lines} lines`);
    for (const needed of ['npm ci && npx svc quickstart', 'npm test', 'export PATH="$PWD/bin:$PATH"'])
      assert.ok(text.includes(needed), `README.md does not say ${needed}`);
    const pages = [
      ...readdirSync(join(root, 'docs', 'guides')).map((f) => `docs/guides/${f}`),
      ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
    ];
    for (const page of pages) assert.ok(text.includes(`](${page})`), `README.md does not link ${page}`);
  });

  it('quote the EBADENGINE warning npm prints on Node 20, naming the package and its engine range', () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } }>;
    };
    const cookie = lock.packages['node_modules/cookie']!;
    assert.ok(text.includes('npm warn EBADENGINE Unsupported engine {'), 'the warning line npm prints');
    assert.ok(text.includes(`package: 'cookie@${cookie.version}'`), `the package npm names: cookie@${cookie.version}`);
    assert.ok(text.includes(`required: { node: '${cookie.engines?.node}' }`), `its range: ${cookie.engines?.node}`);
  });

  it('link only to files that exist, and to headings that exist in them', () => {
    const slug = (heading: string) => heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
    const headings = (file: string) =>
      readFileSync(file, 'utf8')
        .replace(/^```[\s\S]*?^```/gm, '')
        .split('\n')
        .flatMap((line) => /^#+ (.*)$/.exec(line)?.[1] ?? [])
        .map(slug);
    const broken: string[] = [];
    for (const guide of guides) {
      const text = readFileSync(guide.file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target = '', anchor] of text.matchAll(/\]\(((?!https?:)[^)#\s]*)(?:#([^)\s]+))?\)/g)) {
        const file = target === '' ? guide.file : join(dirname(guide.file), target);
        if (!existsSync(file)) broken.push(`${relative(root, guide.file)}: ${target} does not exist`);
        else if (anchor && file.endsWith('.md') && !headings(file).includes(anchor))
          broken.push(`${relative(root, guide.file)}: ${target}#${anchor}: no such heading`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('fence every block with a language and mark every shell block that is not run with a reason', () => {
    assert.deepEqual(guides.flatMap((g) => g.problems), []);
    const shell = guides.flatMap((g) => g.blocks.filter((b) => b.lang === 'sh').map((b) => ({ ...b, file: g.file })));
    assert.ok(shell.length >= 30, `only ${shell.length} shell blocks in the README and the guides`);
    const notRun = shell.filter((b) => b.marker?.kind === 'not run');
    assert.ok(notRun.length <= 4, `${notRun.length} blocks are not run: ${notRun.map((b) => `${relative(root, b.file)}:${b.line}`).join(', ')}`);
  });
});

// Each guide in its own temporary home and, where unshare works, its own network: two at a time then; one at a time
// on the machine's loopback, where two quickstarts would want the same ports.
describe('every command of every guide runs as printed', { concurrency: runner.canUnshare() ? 2 : 1 }, () => {
  for (const guide of guides) {
    const name = relative(root, guide.file);
    it(`the shell blocks of ${name} run in order and print what it shows`, { timeout: 600_000 }, async () => {
      const report = await runner.runGuide(guide, { root, svcCommand, setupSteps: setup });
      assert.ok(report.ok, report.failure);
      if (guide.blocks.some((b) => b.lang === 'sh' && b.marker?.kind !== 'not run')) assert.ok(report.steps > 0);
    });
  }
});

/** Whether `pid` is gone, asked until it is or for 10 s: a killed process stays a zombie until its new parent reaps it. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('the guides runner', () => {
  const fixture = (text: string) => runner.parseGuide(text, join(root, 'docs', 'guides', 'fixture.md'));
  const run = (text: string, keep = false) => runner.runGuide(fixture(text), { root, svcCommand: ['true'], keep });

  it('names the file and line of a block that fails, with its output', async () => {
    const report = await run('# t\n\n```sh\nA=1\n```\n\n```sh\necho "A is $A"\nfalse\n```\n');
    assert.equal(report.ok, false);
    assert.match(report.failure!, /docs\/guides\/fixture\.md:7: the block exited 1/);
    assert.match(report.failure!, /A is 1/);
  });

  it('fails a block marked "fails" that succeeds, and passes one that fails', async () => {
    const succeeded = await run('<!-- guide: fails -->\n```sh\ntrue\n```\n');
    assert.equal(succeeded.ok, false);
    assert.match(succeeded.failure!, /was to fail, and succeeded/);
    const failed = await run('<!-- guide: fails -->\n```sh\nfalse\n```\n\n```sh\necho after\n```\n');
    assert.equal(failed.ok, true, failed.failure);
  });

  it('fails a guide whose shown output the block did not print, naming the missing line', async () => {
    const report = await run('```sh\necho "one   two"\n```\n<!-- guide: output -->\n```text\none two\nthree\n```\n');
    assert.equal(report.ok, false);
    assert.match(report.failure!, /missing:\n {2}three/);
    const good = await run('```sh\necho "one   two"\n```\n<!-- guide: output -->\n```text\none two\n```\n');
    assert.equal(good.ok, true, good.failure);
  });

  it('refuses a block with no language, a bash block, an unknown marker and "not run" without a reason', () => {
    const parsed = fixture('```\nls\n```\n\n```bash\nls\n```\n\n<!-- guide: skip -->\n```sh\nls\n```\n\n<!-- guide: not run: -->\n```sh\nls\n```\n');
    assert.equal(parsed.problems.length, 4, parsed.problems.join('\n'));
    assert.match(parsed.problems[0]!, /fixture\.md:1: a fenced block without a language/);
    assert.match(parsed.problems[1]!, /fixture\.md:5: a bash block: write sh/);
    assert.match(parsed.problems[2]!, /unknown guide marker 'skip'/);
    assert.match(parsed.problems[3]!, /"not run" needs a reason/);
  });

  it('starts a background block, waits for its text, and stops it and its children when the guide ends', async () => {
    const report = await run(
      '<!-- guide: background until "ready" -->\n```sh\nsh -c \'echo $$ > child.pid; sleep 300 & echo $! > grandchild.pid; echo ready; wait\'\n```\n\n```sh\ntest -s child.pid\n```\n',
      true,
    );
    try {
      assert.equal(report.ok, true, report.failure);
      for (const file of ['child.pid', 'grandchild.pid']) {
        const pid = Number(readFileSync(join(report.kept!, 'work', file), 'utf8'));
        assert.equal(await gone(pid), true, `${file} (${pid}) still runs`);
      }
    } finally {
      if (report.kept && existsSync(report.kept)) rmSync(report.kept, { recursive: true, force: true });
    }
  });

  it('kills a guide past its time limit with everything it started, background blocks included', async () => {
    const parsed = fixture(
      '<!-- guide: background until "ready" -->\n```sh\nsh -c \'echo $$ > bg.pid; echo ready; exec sleep 300\'\n```\n\n```sh\nsh -c \'echo $$ > fg.pid; exec sleep 300\'\n```\n',
    );
    const report = await runner.runGuide(parsed, { root, svcCommand: ['true'], keep: true, timeoutMs: 3000 });
    try {
      assert.equal(report.ok, false);
      assert.match(report.failure!, /fixture\.md:6: the block was killed \(SIGKILL\)/);
      for (const file of ['bg.pid', 'fg.pid']) {
        const pid = Number(readFileSync(join(report.kept!, 'work', file), 'utf8'));
        assert.equal(await gone(pid), true, `${file} (${pid}) still runs`);
      }
    } finally {
      if (report.kept && existsSync(report.kept)) rmSync(report.kept, { recursive: true, force: true });
    }
  });
});
