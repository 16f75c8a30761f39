/**
 * The two ways a command fails, each with its exit code (docs/guides/cli.md, Commands): 2 the command line is wrong
 * (an unknown resource or field, a value of the wrong form, a missing argument), 1 the controller refused or could
 * not be reached. Commands throw these; the program prints the message and exits with the code.
 */

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The command line is wrong: exit code 2. */
export function usageError(message: string): CliError {
  return new CliError(message, 2);
}

/** The controller refused, or could not be reached: exit code 1. */
export function refusedError(message: string): CliError {
  return new CliError(message, 1);
}
