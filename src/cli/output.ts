/**
 * Where commands write for people: injected so tests can capture it.
 */
export interface Output {
  print(line: string): void;
  error(line: string): void;
}

export const processOutput: Output = {
  print: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
};

let pipeWatched = false;

/**
 * Ends the process quietly when the reader of its output has gone (`svc edge list identities | head -1`), as Unix
 * tools do on SIGPIPE, instead of printing an EPIPE stack; any other write error stays an error.
 */
export function exitQuietlyWhenReaderGoes(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
}
