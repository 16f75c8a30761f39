/**
 * `svc controller check|run|create-admin`: validate a config file, run a controller from it, or create the
 * default administrator in its store (for deployments that do not use quickstart).
 */
import type { Logger } from 'pino';
import { loadControllerConfig } from '../config/load.js';
import type { ControllerConfig } from '../config/types.js';
import { formatDiagnostic } from '../shared/diagnostics.js';
import { openDatabase } from '../persistence/database.js';
import { createIdentityRepository } from '../persistence/repositories/identities.js';
import { createAuthenticatorRepository } from '../persistence/repositories/authenticators.js';
import { ensureDefaultAdmin } from '../services/identities/default-admin.js';
import { systemClock } from '../shared/clock.js';
import { startController, type RunningController } from '../app/controller.js';
import { createLogger, logFormatProblem, logLevelProblem } from './logger.js';
import { watchForStop } from './stop-signals.js';
import type { Output } from './output.js';

/**
 * Loads and prints every diagnostic, and a bad SVC_LOG_LEVEL or SVC_LOG_FORMAT with them (the environment is part of what the
 * controller runs with); returns the config when there was no error.
 */
export async function loadAndReport(file: string, out: Output): Promise<ControllerConfig | undefined> {
  const { config, diagnostics } = await loadControllerConfig(file, { env: process.env });
  for (const diagnostic of diagnostics) out.error(formatDiagnostic(diagnostic));
  const problems = [logLevelProblem(process.env.SVC_LOG_LEVEL), logFormatProblem(process.env.SVC_LOG_FORMAT)].filter((p) => p !== undefined);
  for (const problem of problems) out.error(`environment: ${problem}`);
  return problems.length > 0 ? undefined : config;
}

export async function checkCommand(file: string, out: Output): Promise<number> {
  const config = await loadAndReport(file, out);
  if (!config) return 1;
  out.print(`${file}: configuration is valid`);
  return 0;
}

export async function runCommand(file: string, out: Output): Promise<number> {
  const config = await loadAndReport(file, out);
  if (!config) return 1;
  return runUntilSignal(config, out);
}

/** Starts the controller and keeps it running until SIGINT or SIGTERM, then stops it cleanly. */
export async function runUntilSignal(
  config: ControllerConfig,
  out: Output,
  banner?: (urls: string[], controller: RunningController) => void | Promise<void>,
  /** Started after the controller and before the banner (quickstart's router); its stop runs before the controller's. */
  companion?: (controller: RunningController, logger: Logger) => Promise<() => Promise<void>>,
): Promise<number> {
  const logger = createLogger();
  // Watching from before the start, so that a signal during a slow start is not lost.
  const stop = watchForStop({ onForcedExit: () => out.error('svc: second signal while stopping; exiting now') });
  try {
    const controller = await startController(config, { logger });
    let stopCompanion: (() => Promise<void>) | undefined;
    try {
      stopCompanion = companion ? await companion(controller, logger) : undefined;
    } catch (error) {
      await controller.close();
      throw error;
    }
    const urls = controller.urls.map((u) => u.publicUrl);
    if (banner) await banner(urls, controller);
    else out.print(`svc controller listening on ${urls.join(', ')}`);
    const reason = await stop.stopped;
    out.print(reason === 'parent-exited' ? 'stopping (the npm process that started svc has exited)...' : `stopping (${reason})...`);
    await stopCompanion?.();
    await controller.close();
    out.print('stopped');
    return 0;
  } finally {
    stop.dispose();
  }
}

/**
 * The username the default administrator logs in with (its identity's name when it has no password), for the
 * quickstart banner on a reused home; undefined when the store has no default admin.
 */
export async function defaultAdminUsername(controller: RunningController): Promise<string | undefined> {
  const admin = await createIdentityRepository(controller.database).findDefaultAdmin();
  if (!admin) return undefined;
  const authenticators = await createAuthenticatorRepository(controller.database).listForIdentity(admin.id);
  return authenticators.find((a) => a.method === 'updb')?.username ?? admin.name;
}

export async function createAdminCommand(file: string, username: string, password: string, out: Output): Promise<number> {
  const config = await loadAndReport(file, out);
  if (!config) return 1;
  const database = await openDatabase(config.db);
  try {
    const { created, identity } = await ensureDefaultAdmin({ identities: createIdentityRepository(database), clock: systemClock }, { username, password });
    out.print(created ? `created default admin '${identity.name}' (id ${identity.id})` : `a default admin already exists: '${identity.name}'; nothing changed`);
    return 0;
  } finally {
    await database.close();
  }
}
