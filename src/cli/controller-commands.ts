/**
 * `svc controller check|run|create-admin`: validate a config file, run a controller from it, or create the
 * default administrator in its store (for deployments that do not use quickstart).
 */
import { loadControllerConfig } from '../config/load.js';
import type { ControllerConfig } from '../config/types.js';
import { formatDiagnostic } from '../shared/diagnostics.js';
import { openDatabase } from '../persistence/database.js';
import { createIdentityRepository } from '../persistence/repositories/identities.js';
import { ensureDefaultAdmin } from '../services/identities/default-admin.js';
import { systemClock } from '../shared/clock.js';
import { startController } from '../app/controller.js';
import { createLogger } from './logger.js';
import type { Output } from './output.js';

/** Loads and prints every diagnostic; returns the config when there was no error. */
export async function loadAndReport(file: string, out: Output): Promise<ControllerConfig | undefined> {
  const { config, diagnostics } = await loadControllerConfig(file, { env: process.env });
  for (const diagnostic of diagnostics) out.error(formatDiagnostic(diagnostic));
  return config;
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
export async function runUntilSignal(config: ControllerConfig, out: Output, banner?: (urls: string[]) => void): Promise<number> {
  const logger = createLogger();
  const controller = await startController(config, { logger });
  const urls = controller.urls.map((u) => u.publicUrl);
  if (banner) banner(urls);
  else out.print(`svc controller listening on ${urls.join(', ')}`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  out.print('stopping...');
  await controller.close();
  out.print('stopped');
  return 0;
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
