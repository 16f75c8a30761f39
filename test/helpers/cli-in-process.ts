/**
 * Runs the `svc` CLI's `main` inside the test process, for tests about what a command does rather than about the
 * process (decision 0061): the same command tree, the same code and the same controller over TLS, without starting
 * a Node process and loading the CLI's modules for every command (a spawned command cost about a second of CPU).
 * Exit codes, signals and terminals stay with the spawned helpers in cli.ts.
 *
 * What a spawned command gets from its process is given here for the length of the call: `main`'s output goes to
 * buffers; the environment variables named are set and then restored; stdin is a stream of the given text (or an
 * empty one, as a spawned command's ignored stdin), never a terminal; what the CLI writes to stderr itself (the
 * prompts of terminal.ts) is captured too. Calls are run one at a time, since they share the process.
 */
import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { CliOptions } from './cli.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

let queue: Promise<unknown> = Promise.resolve();

/** Sets `env` over process.env; returns the function that puts the previous values back. */
function overlayEnvironment(env: Record<string, string>): () => void {
  const previous = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  return () => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

/** Gives process.stdin the text `input` (empty when undefined); returns the function that puts the real one back. */
function replaceStdin(input: string | undefined): () => void {
  const own = Object.getOwnPropertyDescriptor(process, 'stdin');
  const stream = Readable.from(input === undefined || input === '' ? [] : [Buffer.from(input)]);
  Object.defineProperty(process, 'stdin', { value: stream, configurable: true, writable: true });
  return () => {
    stream.destroy();
    if (own) Object.defineProperty(process, 'stdin', own);
    else delete (process as { stdin?: unknown }).stdin;
  };
}

/**
 * Stops at once a command that starts waiting for a stop signal (a controller, a tunnel): no signal reaches it in this
 * process, so a refusal test whose refusal broke would otherwise hang its file instead of failing. The command then
 * runs its own stop and returns what it returns for a stop (0), which the test's expected code does not match.
 * Returns the function that removes the watch.
 */
function stopLongRunning(): () => void {
  const onNewListener = (event: string | symbol, listener: (signal: NodeJS.Signals) => void) => {
    if (event === 'SIGTERM') setImmediate(() => listener('SIGTERM'));
  };
  process.on('newListener', onNewListener);
  return () => process.off('newListener', onNewListener);
}

async function runOnce(args: string[], env: Record<string, string>, options: CliOptions): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const restoreEnv = overlayEnvironment({ SVC_LOG_LEVEL: 'warn', ...env });
  const restoreStdin = replaceStdin(options.stdin);
  const unwatch = stopLongRunning();
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(args, { print: (line) => (stdout += `${line}\n`), error: (line) => (stderr += `${line}\n`) });
    return { code, stdout, stderr };
  } finally {
    unwatch();
    process.stderr.write = write;
    restoreStdin();
    restoreEnv();
  }
}

/** Runs a CLI command to completion in this process, with `env` over the environment and `options.stdin` as stdin. */
export function runCliInProcess(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): Promise<CliResult> {
  const result = queue.then(() => runOnce(args, env, options));
  queue = result.catch(() => undefined);
  return result;
}
