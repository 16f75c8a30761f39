/**
 * The composition root: from a loaded config, open the store, load the PKI, build the services and start one
 * HTTPS server per bind point. The only place where concrete parts are wired together.
 */
import { createExpiryBoard } from '../services/expiries/expiry-board.js';
import { createExpiryRepository } from '../persistence/repositories/expiries.js';
import { createIdentityRepository } from '../persistence/repositories/identities.js';
import { watchLiveStatus } from '../services/status-events/live-status.js';
import { createStatusEvents } from '../services/status-events/status-events.js';
import { createChangePreviewService } from '../services/authorization/change-preview.js';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ControllerConfig, IdentityFiles } from '../config/types.js';
import { buildListenerApp, setClientCas, type ListenerTls } from '../http/listener-app.js';
import { buildSpecRegistry } from '../http/kit/specs.js';
import { edgeClientRoutes, EDGE_CLIENT_PREFIX } from '../http/edge-client/routes.js';
import { edgeManagementRoutes, EDGE_MANAGEMENT_PREFIX } from '../http/edge-management/routes.js';
import { openDatabase, type Database } from '../persistence/database.js';
import { certificateFingerprint, loadCertificateAuthority, loadIdentity, splitPemCertificates, type LoadedIdentity } from '../pki/index.js';
import { createEnrollmentJwtSigner } from '../services/enrollment/enrollment-jwt.js';
import { DEFAULT_AUTHENTICATION_LIMITS, type WorkLimiterOptions } from '../services/authentication/work-limiter.js';
import { oidcIssuer } from '../oidc/issuer.js';
import { buildEnrollmentAdministration, buildEnrollService } from '../services/enrollment/index.js';
import { buildAuthLookups, buildAuthenticationDomain, buildRequestAuthenticator } from '../services/authentication/index.js';
import { buildOidcDomain } from '../services/oidc-provider/index.js';
import { buildAuthPolicyService } from '../services/auth-policies/index.js';
import { buildAuthorizationDomain } from '../services/authorization/index.js';
import { buildAuditDomain } from '../services/audit/index.js';
import { buildControllersDomain } from '../services/controllers/index.js';
import { buildExternalJwtDomain } from '../services/external-jwt/index.js';
import { buildCaDomain } from '../services/cas/index.js';
import { buildIdentitiesDomain } from '../services/identities/index.js';
import { buildMfaDomain } from '../services/mfa/index.js';
import { buildApiSessionAdministration, buildSessionsDomain } from '../services/sessions/index.js';
import { buildPostureDomain } from '../services/posture/index.js';
import { createPostureCheckPreview } from '../services/authorization/change-preview-posture.js';
import { buildEdgeSessionAdministration, buildEdgeSessionsDomain } from '../services/edge-sessions/index.js';
import { buildHousekeeping, SWEEP_INTERVAL_MS } from '../services/housekeeping/index.js';
import { startPeriodic } from '../shared/periodic.js';
import { buildChangeFeed } from '../services/change-feed/index.js';
import { createControllerMetrics, liveSessionCounter } from '../services/metrics/index.js';
import { buildCertificatesDomain } from '../services/certificates/index.js';
import { buildEdgeConnections, buildRouterPresence, type RouterPresence } from '../services/routers/index.js';
import { buildFabricAdmin } from '../services/routers/fabric-admin.js';
import { withSessionCertificates } from '../services/certificates/session-certificate-auth.js';
import { DEFAULT_EXTERNAL_JWT } from '../config/edge-rules.js';
import { createSecretBox, deriveSecretsKey, parseSecretsKey } from '../crypto/secret-box.js';
import type { Services } from '../services/services.js';
import { httpsOrigin, type BuildInfo } from '../services/controllers/version.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { newEntityId, newUuid } from '../shared/random.js';
import { readBuildInfo } from './build-info.js';
import { startRouterControlPlane, type RouterControlPlane } from './router-control-plane.js';
import type { ControlPlane } from '../control-plane/control-plane.js';
import { startupSummary } from './startup-summary.js';

export interface RunningController {
  /** `https://address` of every bind point, by listener name. */
  readonly urls: ReadonlyArray<{ listener: string; interfaceUrl: string; publicUrl: string }>;
  readonly database: Database;
  readonly services: Services;
  /** The app of every bind point (by listener name and bind point address), listening or not (`listen: false`). */
  readonly apps: ReadonlyArray<{ listener: string; bindPoint: string; app: FastifyInstance }>;
  /** Routers' control channels at this controller (decision 0064): the control plane reports them here. */
  readonly routerPresence: RouterPresence;
  /** The control listener routers connect to, when the config has `ctrl` and the controller listens. */
  readonly routerControl: ControlPlane | undefined;
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
    /**
     * False builds every listener's app without opening a socket, for requests through `app.inject()` (the
     * in-process test tier): no TLS, no ports, the same routes and services.
     */
    listen?: boolean;
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

  const metrics = createControllerMetrics({ dialect: config.db.kind, clock });
  const database = await openDatabase(config.db, {
    onConnectionError: (error) => logger.warn({ err: error }, 'a PostgreSQL connection was lost; the pool will open another'),
    onQuery: (durationMs) => metrics.storeQuery(durationMs),
  });
  const sessionTimeoutMs = config.edge?.api.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const sessions = buildSessionsDomain(database, { clock, log: logger, sessionTimeoutMs, accessTokenLifetimeMs: config.edge?.oidc.accessTokenDurationMs ?? 0 });
  const { activity } = sessions;
  // What keeps this controller's in-memory copies (authentication, the service reach index) current: decision 0035.
  const feed = await buildChangeFeed(database, { target: config.db, log: logger, onLag: (seconds) => metrics.setChangeFeedLag(seconds) });
  metrics.countLiveSessionsWith(liveSessionCounter(sessions.presence, clock));

  // Everything after the store is open runs in assemble(): if any step fails (publishing the signing key,
  // registering this controller, listening), what is already open is closed again before the error propagates.
  try {
    return await assemble();
  } catch (error) {
    await activity.close();
    await feed.close();
    await database.close();
    throw error;
  }

  async function assemble(): Promise<RunningController> {
    const caPems = trustedCas(config, identity);
    const secrets = createSecretBox(secretsKey(config, identity));
    const controllersDomain = buildControllersDomain(database, { config, build: options.build ?? readBuildInfo(), clock });
    // Before the name is written anywhere (the signing key's owner, the controllers row): decision 0034.
    await controllersDomain.checkNameFree(identity);
    const { version } = controllersDomain;
    const { audit, events } = buildAuditDomain(database, { clock, log: logger, metrics });
    const externalJwt = buildExternalJwtDomain(database, { config: config.edge?.externalJwt ?? DEFAULT_EXTERNAL_JWT, clock, caPems, log: logger, events, secrets });
    const enrollmentSettings = {
      clock,
      jwt: config.edge ? createEnrollmentJwtSigner({ identity, issuer: httpsOrigin(config.edge.api.address) }) : undefined,
      edgeIdentityDurationMs: config.edge?.enrollment.edgeIdentityDurationMs ?? 0,
    };
    const enrollments = buildEnrollmentAdministration(database, enrollmentSettings);
    // Third-party CAs (decision 0037): managed here, trusted for logins and enrollment, followed by the change feed.
    const ownIssuerPems = [...listenerIdentities.values()].flatMap((one) => splitPemCertificates(one.serverChainPem).slice(1));
    const cas = buildCaDomain(database, { clock, feed, events, ownCaPems: caPems, ownIssuerPems, jwtSigner: enrollmentSettings.jwt });
    const totp = config.edge?.totp;
    const posture = buildPostureDomain(database, { clock, feed });
    const mfa = buildMfaDomain(database, {
      secrets,
      clock,
      events,
      apiSessions: sessions.service,
      posture,
      totp: totp ? { hostname: totp.hostname, maxAttempts: totp.maxAttempts, lockoutMs: totp.lockoutMs } : undefined,
    });
    // What authenticating reads (sessions, identities, auth policies; a login's password authenticator and TOTP
    // state), from memory while the feed is fresh: requests and logins alike.
    const lookups = buildAuthLookups(database, { feed, sessions, mfa: mfa.records, onLookup: (kind, hit) => (hit ? metrics.authCacheHit(kind) : metrics.authCacheMiss(kind)) });
    const { authentication, passwords } = buildAuthenticationDomain(database, {
      lookups,
      clock,
      events,
      sessions,
      sessionTimeoutMs,
      extJwt: externalJwt.authenticator,
      limits: options.authenticationLimits ?? authenticationLimits(config),
      clientCaTrust: cas.trust,
    });
    const oidcIssuers = config.web.flatMap((l) => (l.apis.some((a) => a.binding === 'edge-oidc') ? l.bindPoints.map((bp) => oidcIssuer(bp)) : []));
    const oidc = config.edge
      ? await buildOidcDomain(database, {
          identity,
          issuers: oidcIssuers,
          otherIssuers: [httpsOrigin(config.edge.api.address)],
          lifetimes: config.edge.oidc,
          secrets,
          clock,
          authentication,
          identities: lookups.identities,
          extJwt: externalJwt.authenticator,
          mfa: mfa.mfa,
          configTypes: sessions.configTypes,
        })
      : undefined;
    // Identities with SDK channels at the routers connected here (issue 45; decision 0083).
    const edgeConnections = buildEdgeConnections(database, {
      onError: (error) => logger.warn({ err: error }, "an identity's edge router connection change could not be written; the status streams miss it"),
    });
    const identities = buildIdentitiesDomain(database, { ...enrollmentSettings, log: logger, enrollments, mfa: mfa.records, sessions: sessions.presence, passwords, feed, edgeConnections });
    // Routers' presence (decision 0064): its status is read with every router an API shows.
    const statusEvents = createStatusEvents();
    const routerPresence = buildRouterPresence(database, { clock, metrics, statusEvents });
    // Routers and identities changed at any controller, pushed to the live status streams (issue 45).
    const liveStatus = watchLiveStatus({
      feed,
      events: statusEvents,
      routers: routerPresence,
      identities: createIdentityRepository(database),
      sessions: sessions.presence,
      edge: edgeConnections,
      clock,
      onError: (error) => logger.warn({ err: error }, 'a live status change could not be read; it is read again at the next change'),
    });
    const authorization = buildAuthorizationDomain(database, {
      routerStatus: routerPresence,
      feed,
      clock,
      log: logger,
      enrollmentJwt: enrollmentSettings.jwt,
      routerEnrollmentDurationMs: config.edge?.enrollment.edgeRouterDurationMs ?? 0,
      posture,
    });
    // Router enrollment and extension, the enrollment key set, ephemeral and extended certificates: decision 0038.
    const certificates = buildCertificatesDomain(database, {
      clock,
      signer: enrollmentSettings.jwt,
      signingCa,
      caPems,
      serverCertificates: [...listenerIdentities.values()].map((one) => one.serverLeaf),
      extraHosts: [...(config.edge ? [config.edge.api.address.host] : []), ...config.web.flatMap((l) => l.bindPoints.map((bp) => bp.address.host))],
      allowRouterLocalNames: config.edge?.enrollment.allowRouterLocalNames ?? false,
    });
    await certificates.enrollmentKeys.publish();
    const requestAuth = buildRequestAuthenticator({ clock, lookups, sessions, sessionTimeoutMs, extJwt: externalJwt.authenticator, tokens: oidc?.tokens });
    const services: Services = {
      config,
      clock,
      version,
      certificates,
      // A request with only an ephemeral certificate of a live session is that session (decision 0038).
      auth: withSessionCertificates(requestAuth, certificates.sessionCertificates),
      apiSessions: sessions.service,
      fabric: buildFabricAdmin(database, { online: (ids) => routerPresence.statusOf(ids) }),
      apiSessionAdmin: buildApiSessionAdministration(database, { sessions, clock, audit, oidc: oidc?.provider, certFlags: certificates.extension }),
      sessionConfigTypes: sessions.configTypes,
      statusEvents,
      expiries: createExpiryBoard({ expiries: createExpiryRepository(database), clock }),
      changePreviews: createChangePreviewService({
        engine: authorization.engine,
        policies: {
          'service-policies': authorization.servicePolicies,
          'edge-router-policies': authorization.edgeRouterPolicies,
          'service-edge-router-policies': authorization.serviceEdgeRouterPolicies,
        },
        identities: identities.identities,
        services: authorization.services,
        edgeRouters: authorization.edgeRouters,
        posture: createPostureCheckPreview({ engine: authorization.engine, checks: authorization.postureChecks, identities: identities.identities, posture, clock }),
      }),
      metrics,
      authentication,
      ...(oidc && requestAuth.accessTokens ? { oidc: oidc.provider, accessTokens: requestAuth.accessTokens, oidcFactors: oidc.factors, externalIdp: externalJwt.browserLogins } : {}),
      controllers: controllersDomain.service,
      audit,
      events,
      enrollments,
      enroll: buildEnrollService(database, { ...enrollmentSettings, signingCa, cas: cas.enroll }),
      identities: identities.identities,
      authPolicies: buildAuthPolicyService(database, { clock }),
      authenticators: identities.authenticators,
      mfa: mfa.mfa,
      sessionMfa: mfa.sessionMfa,
      ownAuthenticators: identities.ownAuthenticators,
      instanceId: newUuid(),
      caPems,
      externalJwt: externalJwt.verifier,
      externalJwtSigners: externalJwt.signers,
      cas: cas.service,
      caTrust: cas.trust,
      authorization,
      posture,
      edgeSessions: buildEdgeSessionsDomain(database, {
        clock,
        authorization,
        posture,
        signing: oidc && config.edge ? { signer: oidc.tokens, issuer: httpsOrigin(config.edge.api.address) } : undefined,
        tokenLifetimeMs: config.edge?.oidc.accessTokenDurationMs ?? 0,
        routerStatus: routerPresence,
      }),
      edgeSessionAdmin: buildEdgeSessionAdministration(database, { audit }),
    };
    const controllers = controllersDomain.records;

    const startedAt = clock.now();
    const controllerId = await controllers.upsert({
      id: newEntityId(),
      name: identity.serverLeaf.subject,
      certPem: identity.serverLeaf.toString('pem'),
      fingerprint: certificateFingerprint(identity.serverLeaf.toString('pem')),
      apiAddresses: Object.fromEntries(
        Object.entries(version.apiVersions).map(([binding, { v1 }]) => [binding, v1.apiBaseUrls.map((url) => ({ url, version: 'v1' }))]),
      ),
      ctrlAddress: config.ctrl ? `tls:${config.ctrl.advertise.text}` : null,
      isOnline: true,
      lastJoinedAt: startedAt,
      createdAt: startedAt,
      updatedAt: startedAt,
    });
    // Rows this controller left behind when it was killed; its routers reconnect and write them again (decision 0064).
    routerPresence.registerAs(controllerId);
    await routerPresence.clearOwn();

    const specs = buildSpecRegistry(
      [
        { id: 'edge-client', title: 'svc Edge Client API', prefix: EDGE_CLIENT_PREFIX, serverUrls: version.apiVersions['edge-client']?.v1.apiBaseUrls ?? [], routes: edgeClientRoutes },
        { id: 'edge-management', title: 'svc Edge Management API', prefix: EDGE_MANAGEMENT_PREFIX, serverUrls: version.apiVersions['edge-management']?.v1.apiBaseUrls ?? [], routes: edgeManagementRoutes },
      ].filter((api) => api.serverUrls.length > 0),
      version.version,
      startedAt,
    );

    const apps: Array<{ listener: string; bindPoint: string; app: FastifyInstance }> = [];
    const tlsApps: Array<{ app: FastifyInstance; tls: ListenerTls; listener: (typeof config.web)[number] }> = [];
    const urls: Array<{ listener: string; interfaceUrl: string; publicUrl: string }> = [];
    try {
      for (const listener of config.web) {
        const tlsIdentity = listenerIdentities.get(listener.identity) as LoadedIdentity;
        const listenerTls: ListenerTls = { key: tlsIdentity.serverKeyPem, cert: tlsIdentity.serverChainPem, ca: caPems };
        for (const bindPoint of listener.bindPoints) {
          const app = await buildListenerApp({
            services,
            specs,
            listener,
            bindPoint,
            logger,
            tls: listenerTls,
          });
          tlsApps.push({ app, tls: listenerTls, listener });
          apps.push({ listener: listener.name, bindPoint: bindPoint.address.text, app });
          if (options.listen === false) await app.ready();
          else await app.listen({ host: bindPoint.interface.host, port: bindPoint.interface.port });
          urls.push({ listener: listener.name, interfaceUrl: httpsOrigin(bindPoint.interface), publicUrl: httpsOrigin(bindPoint.address) });
        }
      }
    } catch (error) {
      await Promise.allSettled(apps.map(({ app }) => app.close()));
      throw error;
    }
    // Routers connect here (issue 41; decision 0062); only in a listening controller.
    let routerControl: RouterControlPlane | undefined;
    if (config.ctrl && options.listen !== false) {
      try {
        routerControl = await startRouterControlPlane({
          database,
          listen: { host: config.ctrl.listener.host, port: config.ctrl.listener.port },
          tls: { key: identity.serverKeyPem, cert: identity.serverChainPem, ca: caPems },
          controller: { id: controllerId, name: identity.serverLeaf.subject },
          apiOrigin: config.edge ? httpsOrigin(config.edge.api.address) : (urls[0]?.publicUrl ?? ''),
          // Routers see the OIDC issuers in access tokens and the edge API's origin in session tokens (issue 42).
          issuers: [...new Set([...oidcIssuers, ...(config.edge ? [httpsOrigin(config.edge.api.address)] : [])])],
          services,
          controllers: controllersDomain.service,
          presence: routerPresence,
          connections: edgeConnections,
          feed,
          activity: sessions.activity,
          sessionTimeoutMs,
          cached: { identities: lookups.identities, oidc: lookups.oidcSessions },
          metrics,
          log: logger,
          clock,
        });
      } catch (error) {
        await Promise.allSettled(apps.map(({ app }) => app.close()));
        throw new Error(`ctrl.listener ${config.ctrl.listener.text}: ${(error as Error).message}`, { cause: error });
      }
    }
    // The CAs each listener names to clients follow the verified third-party CAs (decision 0037); routers check
    // client certificates against the same set.
    const stopCaWatch = cas.trust.watch(
      (pems) => {
        for (const { app, tls, listener } of tlsApps) setClientCas(app, tls, listener, pems);
        routerControl?.casChanged(pems);
      },
      (error) => logger.warn({ err: error }, 'the verified CAs could not be read; the listeners keep the CAs they name'),
    );
    // Started once every listener is up, so that a start that fails leaves no timer writing to a closed store.
    const heartbeat = controllersDomain.startHeartbeat(controllerId, (error) => logger.warn({ err: error }, 'the controller heartbeat could not be written; retrying at the next one'));
    const housekeeping = buildHousekeeping(database, { clock, accessTokenLifetimeMs: config.edge?.oidc.accessTokenDurationMs ?? 0, sessionTimeoutMs, activity: sessions.activity });
    const sweeps = startPeriodic(() => housekeeping.sweep(), {
      intervalMs: SWEEP_INTERVAL_MS,
      onError: (error) => logger.warn({ err: error }, 'the housekeeping sweep failed; retrying at the next one'),
    });
    // Where everything is, in one line an operator can find (startup-summary.ts).
    if (options.listen !== false) logger.info({ urls: urls.map((u) => u.publicUrl), ...startupSummary(config, logger.level) }, 'controller listening');

    return {
      urls,
      database,
      services,
      apps,
      routerPresence,
      routerControl: routerControl?.plane,
      async close() {
        stopCaWatch();
        // Open live status streams end first, so that closing the listeners does not wait for them.
        liveStatus.close();
        statusEvents.close();
        await routerControl?.close();
        await Promise.allSettled(apps.map(({ app }) => app.close()));
        await heartbeat.stop();
        await sweeps.stop();
        await routerPresence.clearOwn().catch(() => undefined);
        await controllers.setOnline(controllerId, false, clock.now()).catch(() => undefined);
        await activity.close();
        await feed.close();
        await database.close();
      },
    };
  }
}
