/**
 * Spawns the `svc` CLI as a real process and follows its output, for commands that run until a signal and for what is
 * about the process (exit codes, terminals); commands whose process does not matter run in process (cli-in-process.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCliInProcess } from './cli-in-process.js';

// Compiled runs (scripts/test.mjs) load this helper as .js: the CLI then runs from the compiled svc-cli.js too.
const compiled = import.meta.url.endsWith('.js');
const entry = fileURLToPath(new URL(compiled ? './svc-cli.js' : './svc-cli.ts', import.meta.url));
const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx'];

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /**
   * Resolves when stdout contains `text`; rejects if the process exits first or after `ms`, killing it then (a process
   * left running would hold its port and keep the test file from ever ending).
   */
  waitForOutput(text: string, ms?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface CliOptions {
  /** Written to the command's stdin, which is then closed (without it, stdin is not connected). */
  stdin?: string;
}

/** The processes spawnCli started, until stopLeftRunning stops them. */
const started = new Set<CliProcess>();

export function spawnCli(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [...loader, entry, ...args], {
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin!.end(options.stdin);
  const cli = followed(child, 'stdout');
  started.add(cli);
  return cli;
}

/**
 * Kills every process spawnCli started that still runs, for a file's `after`: a test that stops its controller only
 * once its assertions passed would otherwise leave it running (holding its port) when one fails.
 */
export async function stopLeftRunning(): Promise<void> {
  for (const cli of started) await cli.stop('SIGKILL');
  started.clear();
}

/** A handle on `child` that keeps what it prints; `label` names its output in a timeout's message. */
function followed(child: ChildProcess, label: string): CliProcess {
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    // The bound is generous: on a loaded machine a first quickstart (keys, argon2, TLS) has taken over 30 s.
    waitForOutput(text, ms = 120_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`timed out waiting for ${JSON.stringify(text)}; ${label}: ${out}\nstderr: ${err}`));
        }, ms);
        const check = () => {
          if (out.includes(text)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout!.on('data', check);
        exited.then((code) => {
          clearTimeout(timer);
          if (!out.includes(text)) reject(new Error(`exited with ${code} before ${JSON.stringify(text)}; ${label}: ${out}\nstderr: ${err}`));
        });
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a CLI command to completion. */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawnCli(args, env, options);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

/**
 * `svc` for one CLI user whose config folder is `xdg` (no administrator password in the environment): `svc(...args)`
 * runs a command (in this process: cli-in-process.ts); `ok(...args)` runs one that must succeed and returns its stdout.
 */
export function cliUser(xdg: () => string) {
  const svc = (...args: string[]) => runCliInProcess(args, { XDG_CONFIG_HOME: xdg(), SVC_ADMIN_PASSWORD: '' });
  const ok = async (...args: string[]) => {
    const result = await svc(...args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  };
  return { svc, ok };
}

/** A command line for `sh -c`, each word single-quoted. */
function shellWords(words: string[]): string {
  return words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
}

/**
 * Runs a CLI command on a pseudo-terminal (util-linux `script`), for what reads a terminal (hidden password
 * prompts); `stdout()` then has everything the terminal showed, stderr included. `type` sends keys to it.
 */
export function spawnCliInTerminal(args: string[], env: Record<string, string> = {}): CliProcess & { type(text: string): void } {
  const command = shellWords([process.execPath, ...loader, entry, ...args]);
  const child = spawn('script', ['--quiet', '--return', '--command', command, '/dev/null'], {
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return { ...followed(child, 'terminal'), type: (text) => void child.stdin!.write(text) };
}
