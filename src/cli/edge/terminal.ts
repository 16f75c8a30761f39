/**
 * Reading what the user types: lines from stdin (a terminal or a pipe, so a confirmation can be answered either
 * way), a password from a terminal without echoing it, and where a password comes from (login and enroll alike).
 */
import { createInterface, type Interface } from 'node:readline';
import { usageError } from '../cli-error.js';

let reader: { rl: Interface; lines: string[]; waiting: ((line: string | undefined) => void)[]; closed: boolean } | undefined;

function stdinReader() {
  if (!reader) {
    const rl = createInterface({ input: process.stdin, terminal: false });
    const state = { rl, lines: [] as string[], waiting: [] as ((line: string | undefined) => void)[], closed: false };
    rl.on('line', (line) => {
      const next = state.waiting.shift();
      if (next) next(line);
      else state.lines.push(line);
    });
    rl.on('close', () => {
      state.closed = true;
      for (const next of state.waiting.splice(0)) next(undefined);
    });
    reader = state;
  }
  return reader;
}

/** The next line of stdin, or undefined at its end. */
export function readLine(): Promise<string | undefined> {
  const state = stdinReader();
  const line = state.lines.shift();
  if (line !== undefined) return Promise.resolve(line);
  if (state.closed) return Promise.resolve(undefined);
  return new Promise((resolve) => state.waiting.push(resolve));
}

/** Stops reading stdin so the process can exit. */
export function closeInput(): void {
  reader?.rl.close();
  reader = undefined;
}

/** Asks `question` on stderr and reads the answer line. */
export async function ask(question: string): Promise<string | undefined> {
  process.stderr.write(question);
  return readLine();
}

/** Reads a password from the terminal without echoing it (only when stdin is a terminal). */
export function askHidden(question: string): Promise<string> {
  // The line reader would see the keys too: the terminal is read raw from here on.
  closeInput();
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    // Raw (no echo) before the question, so nothing typed after it is ever shown.
    stdin.setRawMode(true);
    process.stderr.write(question);
    stdin.resume();
    let value = '';
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') {
          done();
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          done();
          reject(new Error('interrupted'));
          return;
        }
        if (char === '\u007f') value = value.slice(0, -1);
        else value += char;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    stdin.on('data', onData);
  });
}

export interface PasswordSource {
  /** `-p PASSWORD`. */
  password?: string;
  /** `--password-stdin`: the first line of stdin. */
  passwordStdin: boolean;
  /** An environment variable to read it from when neither option is given (login's SVC_ADMIN_PASSWORD). */
  envVariable?: string;
}

/**
 * The password from `-p`, `--password-stdin`, the environment variable, or a hidden prompt on a terminal; without a
 * terminal a usage error names the ways to give it (a pipe is never read unless asked, so a script does not hang).
 */
export async function readPassword(source: PasswordSource, prompt: string): Promise<string> {
  if (source.password !== undefined) return source.password;
  if (source.passwordStdin) {
    const line = await readLine();
    if (line === undefined || line === '') throw usageError('--password-stdin: stdin ended before a password line');
    return line;
  }
  const fromEnv = source.envVariable ? process.env[source.envVariable] : undefined;
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) return askHidden(prompt);
  const ways = source.envVariable ? `-p PASSWORD, --password-stdin or ${source.envVariable}` : '-p PASSWORD or --password-stdin';
  throw usageError(`a password is needed: ${ways}`);
}
