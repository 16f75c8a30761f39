/**
 * Readable logs and the small things around the command line (issue 44, items 5 and 6): text logs on a terminal and
 * JSON otherwise, `--log-format` and SVC_LOG_FORMAT, the startup line saying where everything is, a second quickstart
 * on a home in use, help saying the environment once, and output piped into a reader that goes away (`| head -1`) ending without an EPIPE stack.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { runCli, spawnCli, spawnCliInTerminal, stopLeftRunning } from '../helpers/cli.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { request } from '../helpers/https.js';
import { freePort } from '../helpers/ports.js';

const temp = mkdtempSync(join(tmpdir(), 'svc-logs-'));
after(async () => {
  await stopLeftRunning();
  rmSync(temp, { recursive: true, force: true });
});

const home = join(temp, 'home');

async function quickstartArgs(at = home): Promise<{ args: string[]; port: number }> {
  const port = await freePort();
  return { port, args: ['quickstart', '--home', at, '--port', String(port), '--ctrl-port', String(await freePort()), '--no-router'] };
}

describe('controller logs', () => {
  it('are text lines on a terminal, a request reading as method, URL, status and time', async () => {
    const { args, port } = await quickstartArgs();
    const cli = spawnCliInTerminal(args, { SVC_LOG_LEVEL: 'info', SVC_LOG_FORMAT: '' });
    try {
      await cli.waitForOutput('Press Ctrl+C');
      const ca = readFileSync(join(home, 'pki', 'ca-bundle.pem'), 'utf8');
      await request(`https://127.0.0.1:${port}/edge/client/v1/version`, { ca });
      await cli.waitForOutput('request GET /edge/client/v1/version 200');
      assert.match(cli.stdout(), /INFO.*controller listening/);
      assert.doesNotMatch(cli.stdout(), /\{"level":/, 'no JSON line on a terminal');
    } finally {
      await cli.stop('SIGTERM');
    }
  });

  it('stay JSON on a terminal with --log-format json', async () => {
    const { args } = await quickstartArgs();
    const cli = spawnCliInTerminal([...args, '--log-format', 'json'], { SVC_LOG_LEVEL: 'info', SVC_LOG_FORMAT: '' });
    try {
      await cli.waitForOutput('"msg":"controller listening"');
    } finally {
      await cli.stop('SIGTERM');
    }
  });

  it('are JSON when the output is not a terminal, and text with SVC_LOG_FORMAT=text', async () => {
    const { args } = await quickstartArgs();
    const json = spawnCli(args, { SVC_LOG_LEVEL: 'info' });
    try {
      await json.waitForOutput('Press Ctrl+C');
    } finally {
      await json.stop('SIGTERM');
    }
    assert.match(json.stderr(), /^\{"level":30,.*"msg":"controller listening"/m);
    const text = spawnCli((await quickstartArgs()).args, { SVC_LOG_LEVEL: 'info', SVC_LOG_FORMAT: 'text' });
    try {
      await text.waitForOutput('Press Ctrl+C');
    } finally {
      await text.stop('SIGTERM');
    }
    assert.match(text.stderr(), /INFO.*controller listening/);
    assert.doesNotMatch(text.stderr(), /\{"level":/);
  });

  it('say at startup where the APIs, the OIDC issuer, the store, the home, the PKI files and metrics are, and the log level', async () => {
    const fresh = join(temp, 'fresh');
    const { args, port } = await quickstartArgs(fresh);
    const cli = spawnCli(args, { SVC_LOG_LEVEL: 'info' });
    try {
      await cli.waitForOutput('Press Ctrl+C');
    } finally {
      await cli.stop('SIGTERM');
    }
    const line = cli
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'controller listening');
    assert.ok(line, cli.stderr());
    const origin = `https://127.0.0.1:${port}`;
    assert.deepEqual(line.clientApi, [`${origin}/edge/client/v1`]);
    assert.deepEqual(line.managementApi, [`${origin}/edge/management/v1`]);
    assert.deepEqual(line.oidcIssuers, [`${origin}/oidc`]);
    assert.match(String(line.store), new RegExp(`^sqlite ${fresh}/`));
    assert.equal(line.home, fresh);
    assert.equal(line.config, join(fresh, 'config.yml'));
    assert.match(String((line.pki as Record<string, string>).ca), new RegExp(`^${fresh}/pki/`));
    assert.ok(Array.isArray(line.metrics));
    assert.match(String(line.routers), /^tls:127\.0\.0\.1:\d+$/);
    assert.equal(line.logLevel, 'info');
  });

  it('refuse a bad SVC_LOG_FORMAT naming its value and the accepted formats, and a good one passes', async () => {
    const bad = await runCli(['controller', 'check', join(home, 'config.yml')], { SVC_LOG_FORMAT: 'yaml' });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /SVC_LOG_FORMAT: 'yaml' is not a log format; expected json or text/);
    const good = await runCli(['controller', 'check', join(home, 'config.yml')], { SVC_LOG_FORMAT: 'text' });
    assert.equal(good.code, 0, good.stderr);
  });

  it('refuse a bad --log-format naming the choices', async () => {
    const result = await runCliInProcess(['controller', 'run', '--config', join(home, 'config.yml'), '--log-format', 'xml']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--log-format.*'xml' is invalid.*json, text/);
  });
});

describe('a second quickstart on a home in use', () => {
  it('says at once that a controller runs there, with its pid and URL, and exits 1; once it stopped, quickstart starts', async () => {
    const busy = join(temp, 'busy');
    const first = await quickstartArgs(busy);
    const running = spawnCli(first.args);
    try {
      await running.waitForOutput('Press Ctrl+C');
      const second = await runCli((await quickstartArgs(busy)).args);
      assert.equal(second.code, 1);
      assert.ok(second.stderr.includes(`a controller is already running on ${busy}: pid ${running.child.pid}, https://127.0.0.1:${first.port}`), second.stderr);
      assert.doesNotMatch(second.stdout, /starting the controller/, 'nothing was started');
    } finally {
      assert.equal(await running.stop('SIGTERM'), 0);
    }
    const again = spawnCli((await quickstartArgs(busy)).args);
    try {
      await again.waitForOutput('Press Ctrl+C');
    } finally {
      assert.equal(await again.stop('SIGTERM'), 0);
    }
  });
});

describe('help', () => {
  it('lists the environment variables once, in svc --help, and points there from every subcommand', async () => {
    const root = await runCliInProcess(['--help']);
    assert.equal(root.code, 0);
    assert.match(root.stdout, /Environment:\n.*SVC_HOME/);
    assert.equal(root.stdout.match(/XDG_CONFIG_HOME/g)?.length, 1);
    assert.match(root.stdout, /SVC_LOG_FORMAT/);
    for (const command of [['controller', 'run'], ['quickstart'], ['edge'], ['edge', 'list', 'identities'], ['tunnel']]) {
      const help = await runCliInProcess([...command, '--help']);
      assert.equal(help.code, 0, command.join(' '));
      assert.doesNotMatch(help.stdout, /Environment:\n|SVC_LOG_LEVEL/, `${command.join(' ')} --help repeats the environment`);
      assert.match(help.stdout, /Environment variables and exit codes: svc --help/);
    }
  });
});

describe('output into a reader that goes away', () => {
  const compiled = import.meta.url.endsWith('.js');
  const entry = fileURLToPath(new URL(compiled ? '../helpers/svc-cli.js' : '../helpers/svc-cli.ts', import.meta.url));
  const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx'];

  for (const command of [['--help'], ['completion', 'bash'], ['edge', '--help']]) {
    it(`svc ${command.join(' ')} ends quietly with 0 when its stdout is closed before it writes (| head -1)`, async () => {
      const child = spawn(process.execPath, [...loader, entry, ...command], { stdio: ['ignore', 'pipe', 'pipe'] });
      // The reader goes away at once, as head does after its line: every write of the command then fails with EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      assert.doesNotMatch(stderr, /EPIPE|Error/, stderr);
      assert.equal(code, 0);
    });
  }
});
