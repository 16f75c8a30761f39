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
