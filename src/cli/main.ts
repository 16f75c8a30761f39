/**
 * The `svc` command: builds the command tree (program.ts) and runs the command line through it.
 * Exit codes: 0 success, 1 the work found errors or the controller refused, 2 the command line was wrong or a file
 * could not be read.
 */
import { CommanderError } from 'commander';
import { completions } from './completion.js';
import { managementDocument } from './edge/spec-source.js';
import { catalogueOf } from './edge/catalogue.js';
import { closeInput } from './edge/terminal.js';
import type { EdgeCatalogue } from './edge/edge-command.js';
import { exitQuietlyWhenReaderGoes, processOutput, type Output } from './output.js';
import { buildProgram, type ProgramState } from './program.js';

/**
 * The generated `svc edge` resource commands cost a document to read (or to generate from the route table), so they
 * are built only for a command line that reaches them.
 */
function needsCatalogue(argv: string[]): boolean {
  const words = argv.filter((w) => !w.startsWith('-'));
  if (words[0] === 'edge') return !EDGE_COMMANDS_WITHOUT_RESOURCES.has(words[1] ?? '');
  return (words[0] === 'help' && words[1] === 'edge') || words[0] === '__complete';
}

/** The `svc edge` commands that neither are nor name resources. */
const EDGE_COMMANDS_WITHOUT_RESOURCES = new Set(['login', 'logout', 'whoami', 'enroll', 'version', 'watch']);

async function loadCatalogue(): Promise<EdgeCatalogue> {
  const { document, source } = await managementDocument();
  return { resources: catalogueOf(document), source };
}

/** Runs the command line `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], out: Output = processOutput): Promise<number> {
  if (out === processOutput) exitQuietlyWhenReaderGoes();
  const state: ProgramState = { code: 0 };
  const catalogue = needsCatalogue(argv) ? await loadCatalogue() : undefined;
  const program = buildProgram(out, state, catalogue);
  if (argv[0] === '__complete') {
    for (const candidate of completions(program, argv.slice(1))) out.print(candidate);
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.code;
  } catch (error) {
    // Help and --version end parsing through the same exception, with code 0; every other parser error is usage.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    out.error(`svc: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    closeInput();
  }
}
