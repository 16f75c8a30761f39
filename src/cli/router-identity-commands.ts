/**
 * `svc router enroll` and `svc router renew`: the router's identity from the command line. The config is checked
 * first with the same validator as `svc router validate` (errors refuse, warnings print); the work is in
 * router/enrollment/; this file words the outcome: what was written, and the next command to run.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { enrollWithJwt } from '../router/enrollment/enroll.js';
import { renewOnce } from '../router/enrollment/renewal.js';
import { readRouterConfig } from '../router/config-file.js';
import { endpointsFilePath } from '../router-config/timings.js';
import { RouterSetupError } from '../router/errors.js';
import type { RouterFile } from '../router-config/schema.js';
import { systemClock } from '../shared/clock.js';
import { formatDiagnostic, hasErrors } from '../shared/diagnostics.js';
import { reasonOf } from '../shared/system-errors.js';
import type { Output } from './output.js';

const style = { style: 'severity-first' } as const;

/** The validated config, after printing its diagnostics; undefined when it has errors. */
async function checkedConfig(configPath: string, out: Output): Promise<RouterFile | undefined> {
  const { config, diagnostics } = await readRouterConfig(configPath, process.env);
  for (const diagnostic of diagnostics) out.error(formatDiagnostic(diagnostic, style));
  if (hasErrors(diagnostics) || config === undefined) {
    out.error(`svc: ${configPath} has errors; fix them first (svc router validate ${configPath})`);
    return undefined;
  }
  return config;
}

/** Runs `work`, turning a RouterSetupError into its sentence on stderr and exit code 1. */
async function reporting(out: Output, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof RouterSetupError)) throw error;
    out.error(`svc: ${error.message}`);
    return 1;
  }
}

/** `svc router enroll --jwt FILE --config FILE`: exit 0 enrolled, 1 refused (nothing written), 2 unreadable JWT file. */
export async function enrollCommand(options: { jwt: string; config: string }, out: Output): Promise<number> {
  let jwt: string;
  try {
    jwt = await readFile(options.jwt, 'utf8');
  } catch (error) {
    out.error(`svc: --jwt ${options.jwt}: cannot read the file (${reasonOf(error)})`);
    return 2;
  }
  return reporting(out, async () => {
    const config = await checkedConfig(options.config, out);
    if (config === undefined) return 1;
    const result = await enrollWithJwt({ configPath: options.config, config, jwtFile: options.jwt, jwt, clock: systemClock });
    out.print(`enrolled edge router ${result.routerId} with the controller at ${result.origin}`);
    if (result.keptKey) out.print('kept the existing key of identity.key (it is of the configured csr.keyType)');
    out.print(`wrote:\n${result.written.map((line) => `  ${line}`).join('\n')}`);
    out.print(`next: svc router run --config ${options.config}`);
    return 0;
  });
}

/** `svc router renew --config FILE`: one renewal now; exit 0 renewed, 1 refused (files unchanged). */
export async function renewCommand(options: { config: string }, out: Output): Promise<number> {
  return reporting(out, async () => {
    const config = await checkedConfig(options.config, out);
    if (config === undefined) return 1;
    const endpointsFile = endpointsFilePath(config, options.config);
    const identity = await renewOnce({ configPath: options.config, config, endpointsFile, clock: systemClock });
    const base = dirname(resolve(options.config));
    out.print(`renewed the certificates of edge router ${identity.clientLeaf.subject.replace(/^CN=/, '')}: valid until ${identity.notAfter.toISOString()}`);
    out.print(`wrote ${resolve(base, config.identity.cert)} and ${resolve(base, config.identity.server_cert)}`);
    return 0;
  });
}
