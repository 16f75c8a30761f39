/**
 * Rules for the `edge` section beyond its shape: address syntax, duration limits, the OIDC token lifetime
 * adjustments, the TOTP host name and the JWKS fetch limits of external JWT signers. Produces the typed
 * EdgeConfig, or undefined when a part is wrong.
 */
import { isIPv4 } from 'node:net';
import { formatDuration, parseDuration } from '../shared/durations.js';
import { hasPath } from '../shared/yaml-source.js';
import { isDnsName, parseHostPort } from './host-port.js';
import { errorCount, readDuration, referToFile, reportError, reportWarning } from './rule-context.js';
import type { RuleContext } from './rule-context.js';
import { DEFAULTS } from './schema.js';
import type { EdgeFile } from './schema.js';
import type { EdgeConfig, ExternalJwtConfig } from './types.js';

const MINUTE = 60_000;
const SESSION_TIMEOUT_MIN = MINUTE;
const ENROLLMENT_DURATION_MIN = 5 * MINUTE;
const TOKEN_DURATION_MIN = MINUTE;
/** The refresh token must outlive the access token by this much (spec: "at least 1 minute longer"). */
const REFRESH_MARGIN = MINUTE;
const JWKS_TIMEOUT_MIN = 100;
/** A TOTP lock shorter than a time step would not slow guessing down. */
const TOTP_LOCKOUT_MIN = 30_000;
const JWKS_REFRESH_MIN = 1000;
const AUTH_QUEUE_WAIT_MIN = 100;

/**
 * Checks the edge section value by value and maps it. Each rule reads only values that passed the schema check
 * (`context.clean` of that value, not of its section), so every problem of the section is reported in one run: a
 * wrong `edge.api.address` does not hide a too-short `edge.totp.lockoutDuration`. The `??` fallbacks only
 * satisfy the types, the schema check has filled the defaults in already.
 */
export function edgeRules(context: RuleContext, file: EdgeFile): EdgeConfig | undefined {
  // A section that is not a mapping is reported by the schema check; its values are then read as missing.
  const edge = file !== null && typeof file === 'object' ? file : ({} as EdgeFile);
  const before = errorCount(context);
  const api = apiRules(context, edge.api ?? ({} as EdgeFile['api']));
  const enrollment = enrollmentRules(context, edge.enrollment ?? ({} as EdgeFile['enrollment']));
  const oidc = oidcDurations(context, edge.oidc ?? {});
  const totp = totpRules(context, edge.totp ?? {}, api?.address.host);
  const externalJwt = externalJwtRules(context, edge.externalJwt ?? {});
  if (errorCount(context) > before || api === undefined || enrollment === undefined || oidc === undefined || totp === undefined || externalJwt === undefined) {
    return undefined;
  }
  return { api, enrollment, oidc, totp, externalJwt };
}

/** A duration at `path`, when its value passed the schema check (a value that did not is reported already). */
function duration(context: RuleContext, path: string[], text: string | undefined, fallback: string, minimumMs: number): number | undefined {
  return context.clean(path) ? readDuration(context, path, text ?? fallback, minimumMs) : undefined;
}

function apiRules(context: RuleContext, api: EdgeFile['api']): EdgeConfig['api'] | undefined {
  const path = ['edge', 'api'];
  let address: ReturnType<typeof parseHostPort> | undefined;
  if (context.clean([...path, 'address'])) {
    address = parseHostPort(api.address);
    if (!address.ok) reportError(context, [...path, 'address'], address.problem);
  }
  const sessionTimeoutMs = duration(context, [...path, 'sessionTimeout'], api.sessionTimeout, DEFAULTS.sessionTimeout, SESSION_TIMEOUT_MIN);
  const maxWaitMs = duration(context, [...path, 'authQueue', 'maxWait'], api.authQueue?.maxWait, DEFAULTS.authQueueMaxWait, AUTH_QUEUE_WAIT_MIN);
  if (address === undefined || !address.ok || sessionTimeoutMs === undefined || maxWaitMs === undefined || !context.clean(path)) return undefined;
  const disableOidcAutoBinding = api.disableOidcAutoBinding ?? DEFAULTS.disableOidcAutoBinding;
  const authQueue = {
    concurrency: api.authQueue?.concurrency ?? DEFAULTS.authQueueConcurrency,
    maxQueued: api.authQueue?.maxQueued ?? DEFAULTS.authQueueMaxQueued,
    maxWaitMs,
  };
  return { address: address.value, sessionTimeoutMs, disableOidcAutoBinding, authQueue };
}

function enrollmentRules(context: RuleContext, enrollment: EdgeFile['enrollment']): EdgeConfig['enrollment'] | undefined {
  const path = ['edge', 'enrollment'];
  const signing = enrollment.signingCert ?? ({} as EdgeFile['enrollment']['signingCert']);
  const signingPath = [...path, 'signingCert'];
  const file = (key: 'cert' | 'key' | 'ca') => {
    const text = signing[key];
    return text !== undefined && context.clean([...signingPath, key]) ? referToFile(context, [...signingPath, key], text) : undefined;
  };
  const cert = file('cert');
  const key = file('key');
  const ca = file('ca');
  const kindDuration = (kind: 'edgeIdentity' | 'edgeRouter') =>
    duration(context, [...path, kind, 'duration'], enrollment[kind]?.duration, DEFAULTS.enrollmentDuration, ENROLLMENT_DURATION_MIN);
  const edgeIdentityDurationMs = kindDuration('edgeIdentity');
  const edgeRouterDurationMs = kindDuration('edgeRouter');
  if (cert === undefined || key === undefined || edgeIdentityDurationMs === undefined || edgeRouterDurationMs === undefined || !context.clean(path)) return undefined;
  const allowRouterLocalNames = enrollment.edgeRouter?.allowLocalNames ?? DEFAULTS.allowRouterLocalNames;
  return { signingCert: { cert, key, ...(ca === undefined ? {} : { ca }) }, edgeIdentityDurationMs, edgeRouterDurationMs, allowRouterLocalNames };
}

/** `edge.totp`: the issuer host name, the key file, and the lock after failed codes (at least 30s). */
function totpRules(context: RuleContext, totp: NonNullable<EdgeFile['totp']>, apiHost: string | undefined): EdgeConfig['totp'] | undefined {
  const path = ['edge', 'totp'];
  const hostname = context.clean([...path, 'hostname']) ? totpHostname(context, totp.hostname, apiHost) : undefined;
  const keyFile = totp.encryptionKeyFile;
  const keyFileOk = context.clean([...path, 'encryptionKeyFile']);
  const encryptionKeyFile = keyFile === undefined || !keyFileOk ? {} : { encryptionKeyFile: referToFile(context, [...path, 'encryptionKeyFile'], keyFile) };
  const lockoutMs = duration(context, [...path, 'lockoutDuration'], totp.lockoutDuration, DEFAULTS.totpLockoutDuration, TOTP_LOCKOUT_MIN);
  if (hostname === undefined || lockoutMs === undefined || !keyFileOk || !context.clean(path)) return undefined;
  return { hostname, ...encryptionKeyFile, maxAttempts: totp.maxAttempts ?? DEFAULTS.totpMaxAttempts, lockoutMs };
}

type ExternalJwtFile = NonNullable<EdgeFile['externalJwt']>;

/** `edge.externalJwt` as it is without the section (or without an edge section at all). */
export const DEFAULT_EXTERNAL_JWT: ExternalJwtConfig = Object.freeze({
  allowHttpJwks: DEFAULTS.allowHttpJwks,
  refusePrivateAddresses: DEFAULTS.refusePrivateAddresses,
  jwksTimeoutMs: parseDuration(DEFAULTS.jwksTimeout) as number,
  jwksMaxBytes: DEFAULTS.jwksMaxBytes,
  jwksMaxRedirects: DEFAULTS.jwksMaxRedirects,
  jwksRefreshIntervalMs: parseDuration(DEFAULTS.jwksRefreshInterval) as number,
});

/**
 * JWKS fetching of external JWT signers: a timeout of at least 100ms (shorter cannot complete a TLS handshake) and a
 * refresh interval of at least 1s (it is what stops tokens with made-up `kid`s from making the controller fetch).
 */
function externalJwtRules(context: RuleContext, file: ExternalJwtFile): ExternalJwtConfig | undefined {
  const path = ['edge', 'externalJwt'];
  const jwksTimeoutMs = duration(context, [...path, 'jwksTimeout'], file.jwksTimeout, DEFAULTS.jwksTimeout, JWKS_TIMEOUT_MIN);
  const jwksRefreshIntervalMs = duration(context, [...path, 'jwksRefreshInterval'], file.jwksRefreshInterval, DEFAULTS.jwksRefreshInterval, JWKS_REFRESH_MIN);
  if (jwksTimeoutMs === undefined || jwksRefreshIntervalMs === undefined || !context.clean(path)) return undefined;
  return {
    allowHttpJwks: file.allowHttpJwks ?? DEFAULTS.allowHttpJwks,
    refusePrivateAddresses: file.refusePrivateAddresses ?? DEFAULTS.refusePrivateAddresses,
    jwksTimeoutMs,
    jwksMaxBytes: file.jwksMaxBytes ?? DEFAULTS.jwksMaxBytes,
    jwksMaxRedirects: file.jwksMaxRedirects ?? DEFAULTS.jwksMaxRedirects,
    jwksRefreshIntervalMs,
  };
}

type OidcFile = NonNullable<EdgeFile['oidc']>;

/**
 * Token lifetimes. Unlike other durations, values that are too short are raised with a warning rather than
 * refused: the spec says the controller adjusts them. Below 1m -> 1m; then the refresh token is stretched to
 * outlive the access token by 1m.
 */
function oidcDurations(context: RuleContext, oidc: OidcFile): EdgeConfig['oidc'] | undefined {
  const path = ['edge', 'oidc'];
  const read = (key: keyof OidcFile): number | undefined => {
    if (!context.clean([...path, key])) return undefined;
    const text = oidc[key] ?? DEFAULTS[key];
    const ms = readDuration(context, [...path, key], text, 0);
    if (ms === undefined || ms >= TOKEN_DURATION_MIN) return ms;
    const raised = formatDuration(TOKEN_DURATION_MIN);
    reportWarning(context, [...path, key], `${key} ${text} is below the minimum ${raised}; using ${raised}`);
    return TOKEN_DURATION_MIN;
  };
  const access = read('accessTokenDuration');
  const id = read('idTokenDuration');
  let refresh = read('refreshTokenDuration');
  if (access === undefined || id === undefined || refresh === undefined || !context.clean(path)) return undefined;
  if (refresh < access + REFRESH_MARGIN) {
    const raised = access + REFRESH_MARGIN;
    // Point at the refresh value when the file has one; otherwise the access value is what made it too short.
    const at = hasPath(context.source, [...path, 'refreshTokenDuration']) ? 'refreshTokenDuration' : 'accessTokenDuration';
    reportWarning(
      context,
      [...path, at],
      `refreshTokenDuration ${formatDuration(refresh)} must be at least ${formatDuration(REFRESH_MARGIN)} longer than ` +
        `accessTokenDuration ${formatDuration(access)}; using ${formatDuration(raised)}`,
    );
    refresh = raised;
  }
  return { accessTokenDurationMs: access, idTokenDurationMs: id, refreshTokenDurationMs: refresh };
}

/**
 * The issuer name in TOTP enrolment URLs: a bare host name, by default the host of edge.api.address
 * (undefined, without a report, when that address is itself wrong and already reported).
 */
function totpHostname(context: RuleContext, written: string | undefined, apiHost: string | undefined): string | undefined {
  if (written === undefined) return apiHost;
  if (!isDnsName(written) && !isIPv4(written)) {
    reportError(context, ['edge', 'totp', 'hostname'], `'${written}' must be a bare hostname (no scheme, port or path)`);
    return undefined;
  }
  return written;
}
