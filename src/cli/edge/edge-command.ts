/**
 * `svc edge …`: the network from the command line, over the Management and Client APIs. Login, logout, whoami,
 * enroll, policy-advice, version and watch are written here, reach and preview in reach-and-preview.ts; the resource
 * commands are generated from the Management API document (resource-tree.ts, related-commands.ts, action-commands.ts,
 * spec-source.ts).
 */
import { Command, Option } from 'commander';
import type { Output } from '../output.js';
import { addActionCommands } from './action-commands.js';
import { policyAdviceCommand, versionCommand } from './advice-and-version.js';
import type { ResourceSpec } from './catalogue.js';
import { managementClient } from './management-client.js';
import { addMeCommands } from './me-commands.js';
import { addResourceCommands, resourcesHelp, type Run } from './resource-tree.js';
import { addReachAndPreviewCommands } from './reach-and-preview.js';
import { positiveInteger } from './list-output.js';
import { adviseOnUnknownOptions } from './upstream-habits.js';

// Loaded when their command runs: they bring the PKI and JOSE modules, which other commands do not need.
const login = () => import('./login.js');
const enroll = () => import('./enroll.js');
const watch = () => import('./watch-status.js');

export interface EdgeCatalogue {
  resources: Map<string, ResourceSpec>;
  source: 'login' | 'built-in';
}

/**
 * Adds the edge commands under `edge`. `catalogue` is given when the command line needs the resource commands (it
 * is read from disk, or generated, only then).
 */
export function addEdgeCommands(edge: Command, out: Output, run: Run, catalogue?: EdgeCatalogue): void {
  edge.description('Runs the network from the command line: log in once, then list, create, update and delete any Management API resource');

  edge
    .command('login')
    .description("Logs in to a controller and remembers it (URL, trusted CAs, session) in $XDG_CONFIG_HOME/svc; the first contact shows the CAs' fingerprints to confirm")
    .argument('<url>', 'the controller, such as https://127.0.0.1:1280')
    .option('-u, --username <user>', 'the username (default SVC_ADMIN_USER, else admin)')
    .addOption(new Option('-p, --password <password>', 'the password, readable by other users on the command line (prefer --password-stdin, SVC_ADMIN_PASSWORD or the prompt)').conflicts('passwordStdin'))
    .option('--password-stdin', 'read the password from the first line of stdin')
    .option('--ca <file>', "trust these CA certificates (PEM) instead of confirming the controller's")
    .option('-y, --yes', "trust the controller's CAs without asking")
    .option('--totp <code>', 'the TOTP code, when the identity has TOTP enrolled (else asked on a terminal)')
    .option('--identity <file>', 'log in with an enrolled identity file (certificate login; its CAs are trusted)')
    .action((url: string, options: Record<string, any>) =>
      run(async () =>
        (await login()).loginCommand(
          {
            url,
            username: options.username,
            password: options.password,
            passwordStdin: options.passwordStdin === true,
            ca: options.ca,
            yes: options.yes === true,
            totp: options.totp,
            identity: options.identity,
          },
          out,
        ),
      ),
    );
  edge
    .command('logout')
    .description('Ends the session and forgets the login')
    .action(() => run(async () => (await login()).logoutCommand(out)));
  edge
    .command('whoami')
    .description('Prints the logged-in identity')
    .option('-j, --json', 'print the current identity as JSON')
    .action((options: { json?: boolean }) => run(async () => (await login()).whoamiCommand(out, options.json === true)));
  addMeCommands(edge, out, run);
  edge
    .command('enroll')
    .description(
      'Enrolls with an enrollment JWT as an SDK would: ott makes a key here, sends a CSR and writes an SDK identity file {ztAPI, id: {cert, key, ca}}; updb sets the password (no file)',
    )
    .argument('<file.jwt>', 'the enrollment JWT (from svc edge create identity NAME -o FILE.jwt, with --updb USER for updb)')
    .option('-o, --output <file>', 'ott: where to write the identity file (JSON)')
    .addOption(new Option('-p, --password <password>', 'updb: the password to set, readable by other users on the command line (prefer --password-stdin or the prompt)').conflicts('passwordStdin'))
    .option('--password-stdin', 'updb: read the password from the first line of stdin')
    .action((file: string, options: Record<string, any>) =>
      run(async () =>
        (await enroll()).enrollCommand({ jwtFile: file, output: options.output, password: options.password, passwordStdin: options.passwordStdin === true }, out),
      ),
    );
  edge
    .command('policy-advice')
    .description('Says whether an identity may dial and bind a service and, in words, what is missing')
    .argument('<identity>', 'id or name')
    .argument('<service>', 'id or name')
    .option('-j, --json', 'print the advice as JSON')
    .action((identity: string, service: string, options: { json?: boolean }) =>
      run(async () => policyAdviceCommand(managementClient(), catalogue?.resources ?? new Map(), { identity, service, json: options.json === true }, out)),
    );
  edge
    .command('version')
    .description("Prints the logged-in controller's version document")
    .action(() => run(() => versionCommand(managementClient(), out)));

  edge
    .command('watch')
    .description('Prints what happens at the controller as it happens, one line per event, until Ctrl-C')
    .command('status')
    .description('Routers coming online and going offline (GET /events/status)')
    .option('--count <n>', 'stop after this many events', positiveInteger('--count'))
    .option('-j, --json', 'print each event as one line of JSON')
    .action((options: { count?: number; json?: boolean }) => run(async () => (await watch()).watchStatusCommand({ ...(options.count === undefined ? {} : { count: options.count }), json: options.json === true }, out)));

  if (catalogue) {
    addReachAndPreviewCommands(edge, catalogue.resources, out, run);
    addResourceCommands(edge, catalogue.resources, out, run);
    addActionCommands(edge, catalogue.resources, out, run);
    const source = catalogue.source === 'login' ? "from the logged-in controller's Management API" : "from this build's Management API; after login, the controller's";
    edge.addHelpText('after', resourcesHelp(catalogue.resources, source));
  }
  adviseOnUnknownOptions(edge);
}
