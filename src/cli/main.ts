/**
 * The `svc` command: thin argument parsing that hands each sub-command to its module.
 * Exit codes: 0 success, 1 the work found errors, 2 the command line was wrong or a file could not be read.
 */
import { parseArgs } from 'node:util';
import { checkCommand, createAdminCommand, runCommand } from './controller-commands.js';
import { processOutput, type Output } from './output.js';
import { quickstartCommand } from './quickstart-command.js';
import { explainCommand, schemaCommand, validateCommand } from './router-commands.js';
import { extJwtCheckCommand } from './ext-jwt-command.js';
import { readBuildInfo } from '../app/build-info.js';

const USAGE = `usage:
  svc quickstart [--home DIR] [--host HOST] [--port PORT] [--admin-user NAME] [--admin-password PW]
  svc controller run --config FILE
  svc controller check FILE
  svc controller create-admin --config FILE --admin-user NAME --admin-password PW
  svc router validate [--format text|json] [--strict] FILE...
  svc router explain FILE
  svc router schema
  svc ext-jwt check --controller URL --signer ID --token JWT|- [--username NAME] [--password PW] [--ca FILE]
  svc version`;

/** Runs the command line `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], out: Output = processOutput): Promise<number> {
  const [command, sub] = argv;
  try {
    if (command === 'quickstart') {
      const { values } = parseArgs({
        args: argv.slice(1),
        options: { home: { type: 'string' }, host: { type: 'string' }, port: { type: 'string' }, 'admin-user': { type: 'string' }, 'admin-password': { type: 'string' } },
      });
      return await quickstartCommand(
        { home: values.home, host: values.host, port: values.port, adminUser: values['admin-user'], adminPassword: values['admin-password'] },
        out,
      );
    }
    if (command === 'controller' && sub === 'check') {
      const { positionals } = parseArgs({ args: argv.slice(2), allowPositionals: true, options: {} });
      if (positionals.length !== 1) return usage(out, 'controller check takes one FILE');
      return await checkCommand(positionals[0] as string, out);
    }
    if (command === 'controller' && sub === 'run') {
      const { values } = parseArgs({ args: argv.slice(2), options: { config: { type: 'string' } } });
      if (!values.config) return usage(out, 'controller run needs --config FILE');
      return await runCommand(values.config, out);
    }
    if (command === 'controller' && sub === 'create-admin') {
      const { values } = parseArgs({
        args: argv.slice(2),
        options: { config: { type: 'string' }, 'admin-user': { type: 'string' }, 'admin-password': { type: 'string' } },
      });
      const password = values['admin-password'] ?? process.env.SVC_ADMIN_PASSWORD;
      if (!values.config || !values['admin-user'] || !password) return usage(out, 'controller create-admin needs --config, --admin-user and --admin-password (or SVC_ADMIN_PASSWORD)');
      return await createAdminCommand(values.config, values['admin-user'], password, out);
    }
    if (command === 'router' && sub === 'validate') {
      const { values, positionals } = parseArgs({
        args: argv.slice(2),
        allowPositionals: true,
        options: { format: { type: 'string', default: 'text' }, strict: { type: 'boolean', default: false } },
      });
      if (values.format !== 'text' && values.format !== 'json') return usage(out, `--format must be text or json, not '${values.format}'`);
      if (positionals.length === 0) return usage(out, 'router validate needs at least one FILE');
      return await validateCommand(positionals, { format: values.format, strict: values.strict }, out);
    }
    if (command === 'router' && sub === 'explain') {
      const { positionals } = parseArgs({ args: argv.slice(2), allowPositionals: true, options: {} });
      if (positionals.length !== 1) return usage(out, 'router explain takes one FILE');
      return await explainCommand(positionals[0] as string, out);
    }
    if (command === 'router' && sub === 'schema') {
      parseArgs({ args: argv.slice(2), options: {} });
      return schemaCommand(out);
    }
    if (command === 'ext-jwt' && sub === 'check') {
      const { values } = parseArgs({
        args: argv.slice(2),
        options: {
          controller: { type: 'string' },
          signer: { type: 'string' },
          token: { type: 'string' },
          username: { type: 'string' },
          password: { type: 'string' },
          ca: { type: 'string' },
        },
      });
      const username = values.username ?? process.env.SVC_ADMIN_USER;
      const password = values.password ?? process.env.SVC_ADMIN_PASSWORD;
      if (!values.controller || !values.signer || !values.token || !username || !password) {
        return usage(out, 'ext-jwt check needs --controller, --signer, --token, and --username and --password (or SVC_ADMIN_USER, SVC_ADMIN_PASSWORD)');
      }
      return await extJwtCheckCommand({ controller: values.controller, signer: values.signer, token: values.token, username, password, ca: values.ca }, out);
    }
    if (command === 'version' || command === '--version') {
      const build = readBuildInfo();
      out.print(`svc ${build.version} (${build.revision}, built ${build.buildDate})`);
      return 0;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      out.print(USAGE);
      return command === undefined ? 2 : 0;
    }
    return usage(out, `unknown command '${argv.join(' ')}'`);
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) return usage(out, error.message);
    out.error(`svc: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

function usage(out: Output, problem: string): number {
  out.error(`svc: ${problem}\n${USAGE}`);
  return 2;
}
