/**
 * Spawns the `svc` CLI as a real process and follows its output, for commands that run until a signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Compiled runs (scripts/test.mjs) load this helper as .js: the CLI then runs from the compiled svc-cli.js too.
const compiled = import.meta.url.endsWith('.js');
const entry = fileURLToPath(new URL(compiled ? './svc-cli.js' : './svc-cli.ts', import.meta.url));
const loader = compiled ? ['--enable-source-maps'] : ['--import', 'tsx'];

export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout contains `text`; rejects if the process exits first or after `ms`. */
  waitForOutput(text: string, ms?: number): Promise<void>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [...loader, entry, ...args], {
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    waitForOutput(text, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${JSON.stringify(text)}; stdout: ${out}\nstderr: ${err}`)), ms);
        const check = () => {
          if (out.includes(text)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout!.on('data', check);
        exited.then((code) => {
          clearTimeout(timer);
          if (!out.includes(text)) reject(new Error(`exited with ${code} before ${JSON.stringify(text)}; stdout: ${out}\nstderr: ${err}`));
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
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const cli = spawnCli(args, env);
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}
