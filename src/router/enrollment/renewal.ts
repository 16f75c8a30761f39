/**
 * Certificate renewal of a running router (issue 41 must-have 7; decision 0063). The router asks the controller for
 * new client and server certificates once `identity.renewal.lifetimeShare` of the lifetime of the earlier-expiring
 * one has passed: `POST <api>/edge/client/v1/enroll/extend/router {certCsr, serverCertCsr}` over mutual TLS with the
 * current client certificate, the controller verified against the pinned CA bundle. The CSRs keep the key, the
 * subject (CN = router id) and the config's `csr` names. The new certificates replace the files atomically and are
 * handed to `onRenewed`, so the router builds new TLS contexts for new connections while existing ones carry on.
 *
 * A failed attempt is retried after minRetryInterval, doubling up to maxRetryInterval, one log line per outcome.
 * Two failures are final, since no retry can mend them: an expired client certificate (the controller extends only
 * a valid one: services/routers/router-enrollment.ts) and a 401 (the certificate is no longer the router's current
 * one: the router was re-enrolled, or another renewal won). Both need a new enrollment and are said so once.
 */
import { dirname, resolve } from 'node:path';
import type { RouterFile } from '../../router-config/schema.js';
import type { Clock } from '../../shared/clock.js';
import { parseDuration } from '../../shared/durations.js';
import { readEndpointsFile } from '../endpoints-file.js';
import { RouterSetupError } from '../errors.js';
import { controllerRequest, describeAnswer } from './controller-https.js';
import { CLIENT_API, csrOf } from './enroll.js';
import { loadRouterIdentity, reEnrollHint, writeRouterIdentity, type RouterIdentity } from './identity-files.js';
import { routerCsrs } from './router-keys.js';

export interface RenewalSettings {
  /** Share of the lifetime after which to renew (0.1..0.95). */
  readonly lifetimeShare: number;
  readonly minRetryIntervalMs: number;
  readonly maxRetryIntervalMs: number;
}

/** One line per outcome; pino's methods fit. */
export interface RenewalLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface RenewalOptions {
  /** The router config file: identity paths resolve against its folder. */
  readonly configPath: string;
  /** Its validated content (identity, csr, identity.renewal). */
  readonly config: Pick<RouterFile, 'identity' | 'csr' | 'edge'>;
  /** The endpoints file, whose `api` says where to renew. */
  readonly endpointsFile: string;
  readonly clock: Clock;
  readonly log: RenewalLog;
  /** Default: the config's identity.renewal. */
  readonly settings?: RenewalSettings;
  /** Called with the new identity once its files are written. */
  onRenewed(identity: RouterIdentity): void | Promise<void>;
  /** Called once when renewal gives up for good (expired or refused certificate); the scheduler stops. */
  onGaveUp?(error: RouterSetupError): void;
  readonly timeoutMs?: number;
}

/** A renewal failure no retry can mend. */
export class FinalRenewalError extends RouterSetupError {}

/** identity.renewal in milliseconds (the validator has checked the durations). */
export function renewalSettings(config: Pick<RouterFile, 'identity'>): RenewalSettings {
  const renewal = config.identity.renewal ?? {};
  return {
    lifetimeShare: renewal.lifetimeShare ?? 0.8,
    minRetryIntervalMs: parseDuration(renewal.minRetryInterval ?? '10s') ?? 10_000,
    maxRetryIntervalMs: parseDuration(renewal.maxRetryInterval ?? '10m') ?? 600_000,
  };
}

/** When to renew: notBefore + share x lifetime of whichever certificate expires first. */
export function renewalTime(identity: Pick<RouterIdentity, 'clientLeaf' | 'serverLeaf'>, lifetimeShare: number): Date {
  const [first] = [identity.clientLeaf, identity.serverLeaf].sort((a, b) => Date.parse(a.validTo) - Date.parse(b.validTo));
  const from = Date.parse((first as RouterIdentity['clientLeaf']).validFrom);
  const to = Date.parse((first as RouterIdentity['clientLeaf']).validTo);
  return new Date(from + Math.round((to - from) * lifetimeShare));
}

/** The router id: the client certificate's common name (the controller issued it so). */
function routerIdOf(identity: RouterIdentity): string {
  const cn = identity.clientLeaf.subject.split('\n').find((part) => part.startsWith('CN='));
  return cn === undefined ? '' : cn.slice(3);
}

/**
 * One renewal now: new certificates from the controller, written, loaded and returned (onRenewed is the caller's).
 * Throws FinalRenewalError for what a retry cannot mend, RouterSetupError for the rest.
 */
export async function renewOnce(options: Omit<RenewalOptions, 'onRenewed' | 'log' | 'settings' | 'onGaveUp'>): Promise<RouterIdentity> {
  const { config, configPath, clock, timeoutMs } = options;
  const baseDir = dirname(resolve(configPath));
  const current = await loadRouterIdentity(config.identity, baseDir, { configFile: configPath, clock, allowExpired: true });
  const expiredAt = Date.parse(current.clientLeaf.validTo);
  if (expiredAt <= clock.now().getTime()) {
    throw new FinalRenewalError(
      `identity.cert: the client certificate expired at ${new Date(expiredAt).toISOString()} and the controller renews only a valid one; ${reEnrollHint(configPath)}`,
    );
  }
  const endpoints = await readEndpointsFile(options.endpointsFile);
  if (endpoints?.api === undefined) {
    throw new FinalRenewalError(`endpoints file ${options.endpointsFile}: names no controller API ('api'); it is written by svc router enroll, so enroll first`);
  }
  const csr = csrOf(config as RouterFile);
  const body = await routerCsrs(current.keyPem, routerIdOf(current), csr);
  const answer = await controllerRequest(new URL(`${CLIENT_API}/enroll/extend/router`, endpoints.api), {
    method: 'POST',
    body,
    trust: { ca: current.caPem },
    client: { cert: current.certPem, key: current.keyPem },
    timeoutMs,
  });
  const { cert, serverCert } = (answer.json?.data ?? {}) as { cert?: unknown; serverCert?: unknown };
  if (answer.status === 401) {
    throw new FinalRenewalError(`the controller at ${endpoints.api} no longer accepts this router's certificate (${describeAnswer(answer)}); ${reEnrollHint(configPath)}`);
  }
  if (answer.status !== 200 || typeof cert !== 'string' || typeof serverCert !== 'string') {
    throw new RouterSetupError(`the controller at ${endpoints.api} refused the renewal: ${describeAnswer(answer)}`);
  }
  await writeRouterIdentity(config.identity, baseDir, { certPem: cert, serverCertPem: serverCert });
  return loadRouterIdentity(config.identity, baseDir, { configFile: configPath, clock });
}

export interface Renewal {
  /** Loads the identity and schedules the renewal it is due for. */
  start(): Promise<void>;
  /** Renews now (sharing an attempt under way), rescheduling from the result; rejects as renewOnce does. */
  renewNow(): Promise<RouterIdentity>;
  /** When the next attempt is due; undefined when stopped or given up. */
  nextAttemptAt(): Date | undefined;
  stop(): void;
}

/** setTimeout's longest delay (about 24.8 days); longer waits re-arm on waking. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The running router's renewal scheduler.
 *
 * @example
 * const renewal = createRenewal({ configPath, config, endpointsFile, clock: systemClock, log, onRenewed: (id) => tls.use(id) });
 * await renewal.start();
 */
export function createRenewal(options: RenewalOptions): Renewal {
  const { clock, log } = options;
  const settings = options.settings ?? renewalSettings(options.config);
  let timer: NodeJS.Timeout | undefined;
  let dueAt: Date | undefined;
  let failures = 0;
  let attempt: Promise<RouterIdentity> | undefined;
  let stopped = false;

  const schedule = (at: Date) => {
    if (stopped) return;
    clearTimeout(timer);
    dueAt = at;
    const remaining = Math.max(0, at.getTime() - clock.now().getTime());
    // A wait beyond the timer's range is taken in parts; the last part runs the attempt whatever the clock says then.
    timer = setTimeout(() => {
      if (remaining > MAX_TIMER_MS) schedule(at);
      else void renewNow().catch(() => undefined);
    }, Math.min(remaining, MAX_TIMER_MS));
    timer.unref();
  };

  const scheduleFrom = (identity: RouterIdentity) => {
    failures = 0;
    const at = renewalTime(identity, settings.lifetimeShare);
    schedule(at);
  };

  const run = async (): Promise<RouterIdentity> => {
    try {
      const identity = await renewOnce(options);
      log.info(`renewed the router certificates: client certificate ${identity.clientLeaf.fingerprint256} valid until ${identity.notAfter.toISOString()}`);
      await options.onRenewed(identity);
      scheduleFrom(identity);
      return identity;
    } catch (error) {
      const failure = error instanceof RouterSetupError ? error : new RouterSetupError(`renewal failed: ${(error as Error).message}`);
      if (failure instanceof FinalRenewalError) {
        log.error(`certificate renewal stopped: ${failure.message}`);
        clearTimeout(timer);
        dueAt = undefined;
        options.onGaveUp?.(failure);
      } else {
        const wait = Math.min(settings.minRetryIntervalMs * 2 ** failures, settings.maxRetryIntervalMs);
        failures++;
        log.warn(`certificate renewal failed (attempt ${failures}): ${failure.message}; next attempt in ${wait} ms`);
        schedule(new Date(clock.now().getTime() + wait));
      }
      throw failure;
    }
  };

  const renewNow = (): Promise<RouterIdentity> => {
    attempt ??= run().finally(() => (attempt = undefined));
    return attempt;
  };

  return {
    async start() {
      const identity = await loadRouterIdentity(options.config.identity, dirname(resolve(options.configPath)), { configFile: options.configPath, clock, allowExpired: true });
      scheduleFrom(identity);
      log.info(`certificate renewal scheduled for ${dueAt?.toISOString()} (${Math.round(settings.lifetimeShare * 100)} % of the certificate lifetime)`);
    },
    renewNow,
    nextAttemptAt: () => dueAt,
    stop() {
      stopped = true;
      clearTimeout(timer);
      dueAt = undefined;
    },
  };
}
