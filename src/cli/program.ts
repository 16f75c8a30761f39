/**
 * The `svc` command tree (commander): every command with its description, options and the environment it reads,
 * each handing its work to its module. Exit codes: 0 success, 1 the work found errors or the controller refused,
 * 2 the command line was wrong (unknown command or option, missing argument, bad value) or a file could not be read.
 */
import { Argument, Command, Option } from 'commander';
import { readBuildInfo } from '../app/build-info.js';
import { COMPLETION_SHELLS, completionScript } from './completion.js';
import { addEdgeCommands, type EdgeCatalogue } from './edge/edge-command.js';
import { CliError, usageError } from './cli-error.js';
import { warnOfSecretsOnArgv } from './secrets-on-argv.js';
import type { Run } from './edge/resource-tree.js';
import type { Output } from './output.js';
import { LOG_FORMATS } from './log-formats.js';

const ENVIRONMENT = `
Environment:
  SVC_HOME            the quickstart home (default ~/.svc/quickstart); also where ext-jwt check finds the CA bundle
  SVC_ADMIN_PASSWORD  the default administrator's password (quickstart, controller create-admin, ext-jwt check, edge login)
  SVC_ADMIN_USER      the administrator's username (ext-jwt check, edge login)
  SVC_LOG_LEVEL       the log level of quickstart, controller run, router run and tunnel: trace, debug, info
                      (default, a line per request), warn, error, fatal or silent
  SVC_LOG_FORMAT      their log format: text (default on a terminal) or json (default otherwise); --log-format wins
  XDG_CONFIG_HOME     where svc edge keeps its login (default ~/.config; the files are in its svc folder)

Exit codes: 0 success, 1 errors found or refused by the controller, 2 usage (the command line or a file)`;

// The command modules are loaded when their command runs: the controller's modules take a while to load, and a
// command such as `svc edge list` or `svc --help` does not need them.
const controllerCommands = () => import('./controller-commands.js');
const routerCommands = () => import('./router-commands.js');
const routerIdentityCommands = () => import('./router-identity-commands.js');
const sdkCommands = () => import('./sdk-commands.js');

/** Where a subcommand's help sends the reader for what every command shares, instead of repeating it. */
const SEE_ROOT_HELP = '\nEnvironment variables and exit codes: svc --help';

/** `--log-format`, on the commands that run until stopped and log as they go. */
const logFormatOption = () => new Option('--log-format <format>', 'text or json lines on stderr (default SVC_LOG_FORMAT, else text on a terminal, json otherwise)').choices(LOG_FORMATS);

export interface ProgramState {
  /** The exit code the last action returned. */
  code: number;
}

/** The whole command tree; `catalogue` adds the generated `svc edge` resource commands. */
export function buildProgram(out: Output, state: ProgramState, catalogue?: EdgeCatalogue): Command {
  const build = readBuildInfo();
  const run: Run = async (action) => {
    try {
      state.code = await action();
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      out.error(`svc: ${error.message}`);
      state.code = error.exitCode;
    }
  };
  const program = new Command('svc')
    .description('Controller of a zero-trust overlay network, and the command line to run the network')
    .version(`svc ${build.version} (${build.revision}, built ${build.buildDate})`, '-v, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => out.print(text.replace(/\n$/, '')),
      writeErr: (text) => out.error(text.replace(/\n$/, '')),
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError("(run with --help for usage)");

  program
    .command('quickstart')
    .description('Creates (or reuses) a home with a PKI, a config and a default admin, and runs a controller and one edge router on it until stopped')
    .option('--home <dir>', 'the home folder (default SVC_HOME, else ~/.svc)')
    .option('--host <host>', 'the address to listen on and advertise (default 127.0.0.1)')
    .option('--port <port>', 'the port (default 1280)')
    .option('--ctrl-port <port>', 'the port routers connect to (default 6262)')
    .option('--no-router', 'run the controller only, without the quickstart edge router')
    .option('--router-health-port <port>', "the quickstart router's health checks and metrics port (default 8081)")
    .option('--router-edge-port <port>', "the quickstart router's edge listener port, where SDKs connect (default 3022)")
    .option('--admin-user <name>', 'the default administrator (default admin)')
    .option('--admin-password <password>', 'its password on first start, readable by other users on the command line (prefer SVC_ADMIN_PASSWORD; else generated and printed)')
    .addOption(logFormatOption())
    .action((options: Record<string, string | undefined> & { router?: boolean }) =>
      run(async () =>
        (await import('./quickstart-command.js')).quickstartCommand(
          { home: options.home, host: options.host, port: options.port, ctrlPort: options.ctrlPort, adminUser: options.adminUser, adminPassword: options.adminPassword, router: options.router, routerHealthPort: options.routerHealthPort as string | undefined, routerEdgePort: options.routerEdgePort as string | undefined },
          out,
        ),
      ),
    );

  const controller = program.command('controller').description('Runs and checks controllers from a config file');
  controller
    .command('run')
    .description('Runs a controller from a config file until SIGINT or SIGTERM')
    .requiredOption('--config <file>', 'the controller config (YAML)')
    .addOption(logFormatOption())
    .action((options: { config: string }) => run(async () => (await controllerCommands()).runCommand(options.config, out)));
  controller
    .command('check')
    .description('Validates a config file without starting; every problem at once')
    .argument('<file>', 'the controller config (YAML)')
    .action((file: string) => run(async () => (await controllerCommands()).checkCommand(file, out)));
  controller
    .command('create-admin')
    .description('Creates the default admin in the configured store (for deployments not made by quickstart); does nothing if one exists')
    .requiredOption('--config <file>', 'the controller config (YAML)')
    .requiredOption('--admin-user <name>', 'the administrator username')
    .option('--admin-password <password>', 'its password, readable by other users on the command line (prefer SVC_ADMIN_PASSWORD)')
    .action((options: { config: string; adminUser: string; adminPassword?: string }) =>
      run(async () => {
        // An empty variable counts as unset, as everywhere else.
        const password = options.adminPassword ?? (process.env.SVC_ADMIN_PASSWORD || undefined);
        if (password === undefined) throw usageError('controller create-admin needs --admin-password (or SVC_ADMIN_PASSWORD)');
        return (await controllerCommands()).createAdminCommand(options.config, options.adminUser, password, out);
      }),
    );

  const router = program.command('router').description('Enrolls and runs edge routers, renews their certificates, and validates and explains router config files');
  router
    .command('run')
    .description('Runs a router from its config file until SIGINT or SIGTERM (enroll it first with svc router enroll)')
    .requiredOption('--config <file>', 'the router config (YAML)')
    .addOption(logFormatOption())
    .action((options: { config: string }) => run(async () => (await routerCommands()).runRouterCommand(options.config, out, build)));
  router
    .command('enroll')
    .description("Enrolls an edge router with its enrollment JWT: makes its key, pins the controller's CA bundle, writes the identity files")
    .requiredOption('--jwt <file>', 'the enrollment JWT (svc edge create edge-router NAME -o FILE)')
    .requiredOption('--config <file>', 'the router config (YAML); its identity section says where the files go')
    .action((options: { jwt: string; config: string }) => run(async () => (await routerIdentityCommands()).enrollCommand(options, out)));
  router
    .command('renew')
    .description("Renews the router's client and server certificates now (POST /enroll/extend/router)")
    .requiredOption('--config <file>', 'the router config (YAML)')
    .action((options: { config: string }) => run(async () => (await routerIdentityCommands()).renewCommand(options, out)));
  router
    .command('validate')
    .description('Validates router config files; every problem as FILE:LINE:COLUMN: error|warning: key.path: message')
    .argument('<file...>', 'router config files (YAML)')
    .addOption(new Option('--format <format>', 'text or json').choices(['text', 'json']).default('text'))
    .option('--strict', 'treat deprecations as errors', false)
    .action((files: string[], options: { format: 'text' | 'json'; strict: boolean }) => run(async () => (await routerCommands()).validateCommand(files, options, out)));
  router
    .command('explain')
    .description('Prints the effective router configuration with every default filled in')
    .argument('<file>', 'a router config file (YAML)')
    .action((file: string) => run(async () => (await routerCommands()).explainCommand(file, out)));
  router
    .command('schema')
    .description("Prints the router file's JSON Schema, for editors' YAML language servers")
    .action(() => run(async () => (await routerCommands()).schemaCommand(out)));

  program
    .command('ext-jwt')
    .description('Checks external JWTs against a running controller')
    .command('check')
    .description('Asks a running controller whether a JWT logs in through an external JWT signer, and if not which check fails')
    .requiredOption('--controller <url>', 'the controller, such as https://127.0.0.1:1280')
    .requiredOption('--signer <id>', 'the external JWT signer id')
    .requiredOption('--token <jwt>', 'the JWT, or - to read it from stdin')
    .option('--username <name>', 'an administrator (default SVC_ADMIN_USER)')
    .option('--password <password>', "the administrator's password, readable by other users on the command line (prefer SVC_ADMIN_PASSWORD)")
    .option('--ca <file>', "CA bundle (PEM) to trust the controller with (default the quickstart home's when present)")
    .action((options: Record<string, string | undefined>) =>
      run(async () => {
        const username = options.username ?? (process.env.SVC_ADMIN_USER || undefined);
        const password = options.password ?? (process.env.SVC_ADMIN_PASSWORD || undefined);
        if (!username || !password) throw usageError('ext-jwt check needs --username and --password (or SVC_ADMIN_USER, SVC_ADMIN_PASSWORD)');
        const { controller, signer, token, ca } = options as Record<string, string>;
        const { extJwtCheckCommand } = await import('./ext-jwt-command.js');
        return extJwtCheckCommand({ controller: controller as string, signer: signer as string, token: token as string, username, password, ca }, out);
      }),
    );

  const sdk = program.command('sdk').description('Dials and hosts services over the overlay with an identity file, as an application using the SDK does');
  const authOption = () => new Option('--auth <kind>', 'how to log in: auto (OIDC when offered), oidc or legacy').choices(['auto', 'oidc', 'legacy']).default('auto');
  sdk
    .command('dial')
    .description('Connects to a service: stdin goes to it, what it sends goes to stdout (like ncat); exits when both directions end')
    .argument('<service>', 'the service name')
    .requiredOption('--identity <file>', 'the identity file (svc edge enroll -o FILE)')
    .addOption(authOption())
    .action((service: string, options: { identity: string; auth: 'auto' | 'oidc' | 'legacy' }) =>
      run(async () => (await sdkCommands()).sdkDialCommand({ service, ...options }, { stdin: process.stdin, stdout: process.stdout }, out)),
    );
  sdk
    .command('host')
    .description('Hosts a service: each incoming connection is piped to a new TCP connection to HOST:PORT, until SIGINT or SIGTERM')
    .argument('<service>', 'the service name')
    .requiredOption('--identity <file>', 'the identity file (svc edge enroll -o FILE)')
    .requiredOption('--to <host:port>', 'where each connection goes')
    .addOption(authOption())
    .action((service: string, options: { identity: string; to: string; auth: 'auto' | 'oidc' | 'legacy' }) => run(async () => (await sdkCommands()).sdkHostCommand({ service, ...options }, out)));

  program
    .command('tunnel')
    .description('Intercepts the services an identity may dial on local ports (proxy style, no root) and relays each connection over the overlay, following service changes, until SIGINT or SIGTERM')
    .requiredOption('--identity <file>', 'the identity file (svc edge enroll -o FILE)')
    .addOption(authOption())
    .option('--bind <ip>', 'where addresses that cannot be intercepted without root are listened on (host names, wildcards, CIDRs, non-loopback IPs)', '127.0.0.1')
    .option('--port-offset <n>', 'added to every intercepted port to make the local port (e.g. 10000: 443 is listened on at 10443)', '0')
    .option('--refresh <seconds>', 'how often to ask the controller whether the services changed', '10')
    .option('--json', 'print each change of what is intercepted as one JSON line instead of a table', false)
    .addOption(logFormatOption())
    .action((options: { identity: string; auth: 'auto' | 'oidc' | 'legacy'; bind: string; portOffset: string; refresh: string; json: boolean }) =>
      run(async () => (await import('./tunnel-command.js')).tunnelCommand(options, out)),
    );

  program
    .command('version')
    .description('Prints the version and build revision')
    .action(() =>
      run(async () => {
        out.print(`svc ${build.version} (${build.revision}, built ${build.buildDate})`);
        return 0;
      }),
    );

  program
    .command('completion')
    .description('Prints a shell completion script: source <(svc completion bash)')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(COMPLETION_SHELLS))
    .action((shell: (typeof COMPLETION_SHELLS)[number]) =>
      run(async () => {
        out.print(completionScript(shell));
        return 0;
      }),
    );

  addEdgeCommands(program.command('edge'), out, run, catalogue);

  // The environment is said once, in the root's help; the others point there.
  program.addHelpText('after', ENVIRONMENT);
  for (const command of program.commands) forEachCommand(command, (sub) => sub.addHelpText('after', SEE_ROOT_HELP));
  // The logger reads SVC_LOG_FORMAT where it is made; the option given on the command line wins over the variable.
  program.hook('preAction', (_program, action) => {
    const format = action.opts().logFormat as string | undefined;
    if (format !== undefined) process.env.SVC_LOG_FORMAT = format;
  });
  warnOfSecretsOnArgv(program, out);
  return program;
}

function forEachCommand(command: Command, visit: (command: Command) => void): void {
  visit(command);
  for (const sub of command.commands) forEachCommand(sub, visit);
}
