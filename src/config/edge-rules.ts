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
 * Checks the edge section part by part (each only when its shape is right) and maps it; the `??`
 * fallbacks only satisfy the types, the schema check has filled the defaults in already.
 */
export function edgeRules(context: RuleContext, edge: EdgeFile): EdgeConfig | undefined {
  const before = errorCount(context);
  const api = context.clean(['edge', 'api']) ? apiRules(context, edge.api) : undefined;
  const enrollment = context.clean(['edge', 'enrollment']) ? enrollmentRules(context, edge.enrollment) : undefined;
  const oidc = context.clean(['edge', 'oidc']) ? oidcDurations(context, edge.oidc ?? {}) : undefined;
  const totp = context.clean(['edge', 'totp']) ? totpHostname(context, edge.totp?.hostname, api?.address.host) : undefined;
  const externalJwt = context.clean(['edge', 'externalJwt']) ? externalJwtRules(context, edge.externalJwt ?? {}) : undefined;
  if (errorCount(context) > before || api === undefined || enrollment === undefined || oidc === undefined || totp === undefined || externalJwt === undefined) {
    return undefined;
  }
  const keyFile = edge.totp?.encryptionKeyFile;
  const encryptionKeyFile = keyFile === undefined ? {} : { encryptionKeyFile: referToFile(context, ['edge', 'totp', 'encryptionKeyFile'], keyFile) };
  const lockoutMs = readDuration(context, ['edge', 'totp', 'lockoutDuration'], edge.totp?.lockoutDuration ?? DEFAULTS.totpLockoutDuration, TOTP_LOCKOUT_MIN);
  if (lockoutMs === undefined) return undefined;
  const maxAttempts = edge.totp?.maxAttempts ?? DEFAULTS.totpMaxAttempts;
  return { api, enrollment, oidc, totp: { hostname: totp, ...encryptionKeyFile, maxAttempts, lockoutMs }, externalJwt };
}

function apiRules(context: RuleContext, api: EdgeFile['api']): EdgeConfig['api'] | undefined {
  const path = ['edge', 'api'];
  const address = parseHostPort(api.address);
  if (!address.ok) reportError(context, [...path, 'address'], address.problem);
  const timeoutText = api.sessionTimeout ?? DEFAULTS.sessionTimeout;
  const sessionTimeoutMs = readDuration(context, [...path, 'sessionTimeout'], timeoutText, SESSION_TIMEOUT_MIN);
  const maxWaitMs = readDuration(context, [...path, 'authQueue', 'maxWait'], api.authQueue?.maxWait ?? DEFAULTS.authQueueMaxWait, AUTH_QUEUE_WAIT_MIN);
  if (!address.ok || sessionTimeoutMs === undefined || maxWaitMs === undefined) return undefined;
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
  const signing = enrollment.signingCert;
  const signingPath = [...path, 'signingCert'];
  const signingCert = {
    cert: referToFile(context, [...signingPath, 'cert'], signing.cert),
    key: referToFile(context, [...signingPath, 'key'], signing.key),
    ...(signing.ca === undefined ? {} : { ca: referToFile(context, [...signingPath, 'ca'], signing.ca) }),
  };
  const duration = (kind: 'edgeIdentity' | 'edgeRouter') => {
    const text = enrollment[kind]?.duration ?? DEFAULTS.enrollmentDuration;
    return readDuration(context, [...path, kind, 'duration'], text, ENROLLMENT_DURATION_MIN);
  };
  const edgeIdentityDurationMs = duration('edgeIdentity');
  const edgeRouterDurationMs = duration('edgeRouter');
  if (edgeIdentityDurationMs === undefined || edgeRouterDurationMs === undefined) return undefined;
  return { signingCert, edgeIdentityDurationMs, edgeRouterDurationMs };
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
  const jwksTimeoutMs = readDuration(context, [...path, 'jwksTimeout'], file.jwksTimeout ?? DEFAULTS.jwksTimeout, JWKS_TIMEOUT_MIN);
  const jwksRefreshIntervalMs = readDuration(context, [...path, 'jwksRefreshInterval'], file.jwksRefreshInterval ?? DEFAULTS.jwksRefreshInterval, JWKS_REFRESH_MIN);
  if (jwksTimeoutMs === undefined || jwksRefreshIntervalMs === undefined) return undefined;
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
  if (access === undefined || id === undefined || refresh === undefined) return undefined;
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
