/**
 * The composition root: from a loaded config, open the store, load the PKI, build the services and start one
 * HTTPS server per bind point. The only place where concrete parts are wired together.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ControllerConfig, IdentityFiles } from '../config/types.js';
import { buildListenerApp } from '../http/listener-app.js';
import { buildSpecRegistry } from '../http/kit/specs.js';
import { edgeClientRoutes, EDGE_CLIENT_PREFIX } from '../http/edge-client/routes.js';
import { edgeManagementRoutes, EDGE_MANAGEMENT_PREFIX } from '../http/edge-management/routes.js';
import { openDatabase, type Database } from '../persistence/database.js';
import { createApiSessionRepository } from '../persistence/repositories/api-sessions.js';
import { createControllerRepository } from '../persistence/repositories/controllers.js';
import { createIdentityRepository } from '../persistence/repositories/identities.js';
import { createSessionPresenceRepository } from '../persistence/repositories/session-presence.js';
import { certificateFingerprint, loadCertificateAuthority, loadIdentity, pkcs7CertsOnlyBase64, splitPemCertificates, type LoadedIdentity } from '../pki/index.js';
import { createApiSessionService } from '../services/sessions/api-sessions.js';
import { createAuthenticationService } from '../services/authentication/authentication.js';
import { createControllerService } from '../services/controllers/controllers.js';
import { createAuditService } from '../services/audit/audit.js';
import { createAuditLogRepository } from '../persistence/repositories/audit-log.js';
import { createRequestAuthenticator } from '../services/authentication/request-auth.js';
import { createSessionActivity } from '../services/sessions/session-activity.js';
import { createCredentialRepository } from '../persistence/repositories/credentials.js';
import { createOwnAuthenticatorService } from '../services/identities/own-authenticators.js';
import { createAuthPolicyRepository } from '../persistence/repositories/auth-policies.js';
import { createEnrollmentRepository } from '../persistence/repositories/enrollments.js';
import { createEnrollService } from '../services/enrollment/enroll.js';
import { createEnrollmentJwtSigner, serverSigningKey } from '../services/enrollment/enrollment-jwt.js';
import { createOidcRepository } from '../persistence/repositories/oidc.js';
import { createAccessTokenVerifier } from '../services/oidc-provider/oidc-access-tokens.js';
import { createOidcProviderService } from '../services/oidc-provider/oidc-provider.js';
import { createAuthRequestSeal } from '../services/oidc-provider/oidc-auth-request-seal.js';
import { limitAuthentication } from '../services/authentication/limited-authentication.js';
import { createWorkLimiter, DEFAULT_AUTHENTICATION_LIMITS, type WorkLimiterOptions } from '../services/authentication/work-limiter.js';
import { createOidcFactorService } from '../services/oidc-provider/oidc-factors.js';
import { createOidcTokenSigner } from '../services/oidc-provider/oidc-tokens.js';
import { publishSigningKey } from '../services/oidc-provider/oidc-signing-keys.js';
import { createSigningKeyRepository } from '../persistence/repositories/signing-keys.js';
import { oidcIssuer } from '../oidc/issuer.js';
import { createEnrollmentService } from '../services/enrollment/enrollments.js';
import { createAuthenticatorRepository } from '../persistence/repositories/authenticators.js';
import { createAuthPolicyService } from '../services/auth-policies/auth-policies.js';
import { createAuthenticatorService } from '../services/identities/authenticators.js';
import { createIdentityService } from '../services/identities/identities.js';
import { createPasswordGuard } from '../services/authentication/password-guard.js';
import { createSecurityEvents } from '../services/audit/security-events.js';
import { createPasswordLockoutRepository } from '../persistence/repositories/password-lockouts.js';
import { DEFAULT_EXTERNAL_JWT } from '../config/edge-rules.js';
import { createExternalJwtSignerRepository } from '../persistence/repositories/external-jwt-signers.js';
import { createExternalJwtVerifier } from '../services/external-jwt/external-jwt.js';
import { createExtJwtAuthenticator } from '../services/external-jwt/ext-jwt-auth.js';
import { createExternalJwtSignerService } from '../services/external-jwt/external-jwt-signers.js';
import { createJwksFetcher } from '../services/external-jwt/jwks-fetcher.js';
import { createMfaService } from '../services/mfa/mfa.js';
import { createSessionMfaService } from '../services/mfa/session-mfa.js';
import { createMfaRepository } from '../persistence/repositories/mfa.js';
import { createSecretBox, deriveSecretsKey, parseSecretsKey } from '../crypto/secret-box.js';
import type { Services } from '../services/services.js';
import { buildVersionInfo, httpsOrigin, type BuildInfo } from '../services/controllers/version.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { newEntityId, newUuid } from '../shared/random.js';
import { readBuildInfo } from './build-info.js';

export interface RunningController {
  /** `https://address` of every bind point, by listener name. */
  readonly urls: ReadonlyArray<{ listener: string; interfaceUrl: string; publicUrl: string }>;
  readonly database: Database;
  readonly services: Services;
  close(): Promise<void>;
}

const DEFAULT_SESSION_TIMEOUT_MS = 30 * 60_000;

/** The login work bounds of `edge.api.authQueue` (without an edge section, the defaults guard the management API). */
function authenticationLimits(config: ControllerConfig): WorkLimiterOptions {
  const queue = config.edge?.api.authQueue;
  return queue ? { ...DEFAULT_AUTHENTICATION_LIMITS, concurrency: queue.concurrency, maxQueued: queue.maxQueued, maxWaitMs: queue.maxWaitMs } : DEFAULT_AUTHENTICATION_LIMITS;
}

/**
 * Every CA the controller trusts: its identity's bundle plus the enrollment signing certificate (a CA: it signs
 * client certificates) and its chain, without duplicates.
 */
function trustedCas(config: ControllerConfig, identity: LoadedIdentity): string[] {
  const pems = [...identity.caPems];
  const signing = config.edge?.enrollment.signingCert;
  for (const file of [signing?.cert, signing?.ca]) {
    if (file) pems.push(...splitPemCertificates(readFileSync(file, 'utf8')));
  }
  return [...new Map(pems.map((pem) => [certificateFingerprint(pem), pem])).values()];
}

/**
 * The key sealing TOTP secrets and recovery codes: the configured key file, else one derived from the controller's
 * private key (stable while that key is; several controllers sharing a store need the same key file).
 */
function secretsKey(config: ControllerConfig, identity: LoadedIdentity): Buffer {
  const file = config.edge?.totp.encryptionKeyFile;
  if (!file) return deriveSecretsKey(identity.serverKeyPem);
  try {
    return parseSecretsKey(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`edge.totp.encryptionKeyFile ${file}: ${(error as Error).message}`, { cause: error });
  }
}

export async function startController(
  config: ControllerConfig,
  options: {
    logger: Logger;
    clock?: Clock;
    build?: BuildInfo;
    /** Bounds on concurrent login work (default DEFAULT_AUTHENTICATION_LIMITS). */
    authenticationLimits?: WorkLimiterOptions;
  },
): Promise<RunningController> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger;
  const identity = await loadIdentity(config.identity, { clock });
  const listenerIdentities = new Map<IdentityFiles, LoadedIdentity>();
  for (const listener of config.web) {
    listenerIdentities.set(listener.identity, listener.identity === config.identity ? identity : await loadIdentity(listener.identity, { clock }));
  }
  // The CA that signs enrolled identities' certificates; loaded (and checked) before anything is opened.
  const signingCa = config.edge ? await loadCertificateAuthority(config.edge.enrollment.signingCert, { clock }) : undefined;

  const database = await openDatabase(config.db, {
    onConnectionError: (error) => logger.warn({ err: error }, 'a PostgreSQL connection failed while idle; the pool will open another'),
  });
  const sessionTimeoutMs = config.edge?.api.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const apiSessions = createApiSessionRepository(database);
  // Activity is written in batches far more often than sessions can time out (see services/sessions/session-activity.ts).
  const activity = createSessionActivity({
    apiSessions,
    flushIntervalMs: Math.min(10_000, Math.floor(sessionTimeoutMs / 10)),
    onError: (error) => logger.error({ err: error }, 'could not record session activity; will retry'),
  });

  // Everything after the store is open runs in assemble(): if any step fails (publishing the signing key,
  // registering this controller, listening), what is already open is closed again before the error propagates.
  try {
    return await assemble();
  } catch (error) {
    await activity.close();
    await database.close();
    throw error;
  }

  async function assemble(): Promise<RunningController> {
    const identities = createIdentityRepository(database);
    const controllers = createControllerRepository(database);
    const authPolicyRecords = createAuthPolicyRepository(database);
    const authenticatorRecords = createAuthenticatorRepository(database);
    const caPems = trustedCas(config, identity);
    // External JWT signers (issue 6): their JWKS are fetched on the terms of edge.externalJwt, trusting the system
    // roots and the controller's own CAs.
    const externalJwtConfig = config.edge?.externalJwt ?? DEFAULT_EXTERNAL_JWT;
    const signerRecords = createExternalJwtSignerRepository(database);
    const jwksFetcher = createJwksFetcher({ config: externalJwtConfig, clock, caPems, log: logger });
    const externalJwt = createExternalJwtVerifier({ signers: signerRecords, identities, fetcher: jwksFetcher, clock });
    const extJwtAuth = createExtJwtAuthenticator({ verifier: externalJwt, signers: signerRecords, clock });
    const version = buildVersionInfo(config, options.build ?? readBuildInfo());
    const apiSessionService = createApiSessionService({ apiSessions, activity, clock });
    const audit = createAuditService({ auditLog: createAuditLogRepository(database), clock });
    const events = createSecurityEvents({ log: logger, audit });
    const passwords = createPasswordGuard({ lockouts: createPasswordLockoutRepository(database), events, clock });
    const enrollmentRecords = createEnrollmentRepository(database);
    const enrollmentJwt = config.edge ? createEnrollmentJwtSigner({ identity, issuer: httpsOrigin(config.edge.api.address) }) : undefined;
    const enrollments = createEnrollmentService({
      enrollments: enrollmentRecords,
      identities,
      audit,
      clock,
      jwt: enrollmentJwt,
      edgeIdentityDurationMs: config.edge?.enrollment.edgeIdentityDurationMs ?? 0,
    });
    const enroll = createEnrollService({
      enrollments: enrollmentRecords,
      identities,
      authPolicies: authPolicyRecords,
      audit,
      clock,
      jwt: enrollmentJwt,
      signingCa,
    });
    const credentials = createCredentialRepository(database);
    const secretBox = createSecretBox(secretsKey(config, identity));
    const mfaRecords = createMfaRepository(database, secretBox);
    const authentication = limitAuthentication(
      createAuthenticationService({
        mfa: mfaRecords,
        extJwt: extJwtAuth,
        identities,
        credentials,
        authPolicies: authPolicyRecords,
        apiSessions: apiSessionService,
        passwords,
        events,
        clock,
        sessionTimeoutMs,
      }),
      createWorkLimiter(options.authenticationLimits ?? authenticationLimits(config)),
    );
    // The OIDC provider: tokens are signed with the server key; every bind point hosting edge-oidc is an issuer.
    // Keys of earlier server certificates stay published (and verify) until the tokens they signed have expired.
    const oidcRecords = createOidcRepository(database);
    const signingKey = serverSigningKey(identity);
    const oidcTokens = config.edge
      ? createOidcTokenSigner({
          signingKey,
          issuers: config.web.flatMap((l) => (l.apis.some((a) => a.binding === 'edge-oidc') ? l.bindPoints.map((bp) => oidcIssuer(bp)) : [])),
          accessTokenDurationMs: config.edge.oidc.accessTokenDurationMs,
          idTokenDurationMs: config.edge.oidc.idTokenDurationMs,
          retiredKeys: await publishSigningKey({
            keys: createSigningKeyRepository(database),
            signingKey,
            now: clock.now(),
            longestTokenLifetimeMs: Math.max(config.edge.oidc.accessTokenDurationMs, config.edge.oidc.idTokenDurationMs),
          }),
        })
      : undefined;
    const accessTokens = oidcTokens ? createAccessTokenVerifier({ tokens: oidcTokens, oidc: oidcRecords, identities, clock }) : undefined;
    const oidc =
      oidcTokens && config.edge
        ? createOidcProviderService({
            oidc: oidcRecords,
            identities,
            authentication,
            tokens: oidcTokens,
            seal: createAuthRequestSeal(secretBox),
            secrets: secretBox,
            clock,
            accessTokenDurationMs: config.edge.oidc.accessTokenDurationMs,
            refreshTokenDurationMs: config.edge.oidc.refreshTokenDurationMs,
          })
        : undefined;
    const mfa = createMfaService({
      mfa: mfaRecords,
      identities,
      audit,
      clock,
      issuer: config.edge?.totp.hostname ?? 'svc',
      events,
      ...(config.edge ? { maxFailedCodes: config.edge.totp.maxAttempts, lockoutMs: config.edge.totp.lockoutMs } : {}),
    });
    // What the identity detail's `hasApiSession` needs; without an edge section no access token can be live.
    const sessions = {
      presence: createSessionPresenceRepository(database),
      legacyTimeoutMs: sessionTimeoutMs,
      accessTokenLifetimeMs: config.edge?.oidc.accessTokenDurationMs ?? 0,
    };
    const services: Services = {
      config,
      clock,
      version,
      auth: createRequestAuthenticator({
        apiSessions,
        identities,
        activity,
        clock,
        sessionTimeoutMs,
        ...(accessTokens ? { accessTokens } : {}),
        secondary: { requiredSigner: async (who) => (await authentication.policyOf(who)).secondary.requireExtJwt, check: extJwtAuth.secondary },
      }),
      apiSessions: apiSessionService,
      authentication,
      ...(oidc && accessTokens ? { oidc, accessTokens, oidcFactors: createOidcFactorService({ provider: oidc, extJwt: extJwtAuth, oidc: oidcRecords, identities, mfa, clock }) } : {}),
      controllers: createControllerService({ controllers }),
      audit,
      events,
      enrollments,
      enroll,
      identities: createIdentityService({ identities, authPolicies: authPolicyRecords, authenticators: authenticatorRecords, enrollments, mfa: mfaRecords, passwords, sessions, audit, clock }),
      authPolicies: createAuthPolicyService({ authPolicies: authPolicyRecords, identities, signers: signerRecords, audit, clock }),
      authenticators: createAuthenticatorService({ authenticators: authenticatorRecords, identities, audit }),
      mfa,
      sessionMfa: createSessionMfaService({ mfa, apiSessions: apiSessionService }),
      ownAuthenticators: createOwnAuthenticatorService({ authenticators: authenticatorRecords, credentials, authPolicies: authPolicyRecords, passwords, clock }),
      caBundlePkcs7: pkcs7CertsOnlyBase64(caPems),
      instanceId: newUuid(),
      caPems,
      externalJwt,
      externalJwtSigners: createExternalJwtSignerService({
        signers: signerRecords,
        authPolicies: authPolicyRecords,
        verifier: externalJwt,
        fetcher: jwksFetcher,
        audit,
        events,
        clock,
        allowHttpJwks: externalJwtConfig.allowHttpJwks,
      }),
    };

    const startedAt = clock.now();
    const controllerId = await controllers.upsert({
      id: newEntityId(),
      name: identity.serverLeaf.subject,
      certPem: identity.serverLeaf.toString('pem'),
      fingerprint: certificateFingerprint(identity.serverLeaf.toString('pem')),
      apiAddresses: Object.fromEntries(
        Object.entries(version.apiVersions).map(([binding, { v1 }]) => [binding, v1.apiBaseUrls.map((url) => ({ url, version: 'v1' }))]),
      ),
      isOnline: true,
      lastJoinedAt: startedAt,
      createdAt: startedAt,
      updatedAt: startedAt,
    });

    const specs = buildSpecRegistry(
      [
        { id: 'edge-client', title: 'svc Edge Client API', prefix: EDGE_CLIENT_PREFIX, serverUrls: version.apiVersions['edge-client']?.v1.apiBaseUrls ?? [], routes: edgeClientRoutes },
        { id: 'edge-management', title: 'svc Edge Management API', prefix: EDGE_MANAGEMENT_PREFIX, serverUrls: version.apiVersions['edge-management']?.v1.apiBaseUrls ?? [], routes: edgeManagementRoutes },
      ].filter((api) => api.serverUrls.length > 0),
      version.version,
      startedAt,
    );

    const apps: FastifyInstance[] = [];
    const urls: Array<{ listener: string; interfaceUrl: string; publicUrl: string }> = [];
    try {
      for (const listener of config.web) {
        const tlsIdentity = listenerIdentities.get(listener.identity) as LoadedIdentity;
        for (const bindPoint of listener.bindPoints) {
          const app = await buildListenerApp({
            services,
            specs,
            listener,
            bindPoint,
            logger,
            tls: { key: tlsIdentity.serverKeyPem, cert: tlsIdentity.serverChainPem, ca: caPems },
          });
          apps.push(app);
          await app.listen({ host: bindPoint.interface.host, port: bindPoint.interface.port });
          urls.push({ listener: listener.name, interfaceUrl: httpsOrigin(bindPoint.interface), publicUrl: httpsOrigin(bindPoint.address) });
        }
      }
    } catch (error) {
      await Promise.allSettled(apps.map((app) => app.close()));
      throw error;
    }
    logger.info({ urls: urls.map((u) => u.publicUrl) }, 'controller listening');

    return {
      urls,
      database,
      services,
      async close() {
        await Promise.allSettled(apps.map((app) => app.close()));
        await controllers.setOnline(controllerId, false, clock.now()).catch(() => undefined);
        await activity.close();
        await database.close();
      },
    };
  }
}
