/**
 * Domain -> wire mappers of identity management: identity (list item and detail alike) and authenticator views.
 * The one place that decides what an identity or authenticator looks like on the wire. Fields about edge router
 * connections and permissions carry the reference's neutral values: none of those exist yet
 * (docs/decisions/0010-response-shapes.md). An authenticator's certificate extension fields are its own (decision
 * 0038). Hosting settings are the identity's own (issue 14).
 */
import type { Authenticator } from '../../domain/authenticator.js';
import type { Enrollment } from '../../domain/enrollment.js';
import type { IdentityDetail, IdentitySummary } from '../../services/identities/identities.js';
import { selfLink } from '../kit/envelope.js';

const iso = (at: Date) => at.toISOString();
const isoOrNull = (at: Date | null) => (at === null ? null : at.toISOString());

function ref(collection: string, id: string, name: string) {
  return { id, name, entity: collection, _links: selfLink(collection, id) };
}

/** The identity's own fields (the common part of the detail). */
function identitySummaryView({ identity, authPolicy }: IdentitySummary) {
  return {
    id: identity.id,
    name: identity.name,
    type: ref('identity-types', identity.typeId, identity.typeId),
    typeId: identity.typeId,
    isAdmin: identity.isAdmin,
    isDefaultAdmin: identity.isDefaultAdmin,
    disabled: identity.disabled,
    disabledAt: isoOrNull(identity.disabledAt),
    disabledUntil: isoOrNull(identity.disabledUntil),
    authPolicyId: authPolicy.id,
    authPolicy: ref('auth-policies', authPolicy.id, authPolicy.name),
    externalId: identity.externalId,
    roleAttributes: identity.roleAttributes,
    tags: identity.tags,
    createdAt: iso(identity.createdAt),
    updatedAt: iso(identity.updatedAt),
    _links: { ...selfLink('identities', identity.id), authenticators: { href: `./identities/${identity.id}/authenticators` } },
  };
}

/** `{cert?: {id, fingerprint}, updb?: {id, username}}`: the first authenticator of each method. */
function authenticatorsSummary(authenticators: Authenticator[]) {
  const cert = authenticators.find((a) => a.method === 'cert' && a.certFingerprint !== null);
  const updb = authenticators.find((a) => a.method === 'updb' && a.username !== null);
  return {
    ...(cert ? { cert: { id: cert.id, fingerprint: cert.certFingerprint as string } } : {}),
    ...(updb ? { updb: { id: updb.id, username: updb.username as string } } : {}),
  };
}

/** `{ott?, updb?}`: pending enrollments with their JWT and token (shown to administrators, as in the reference). */
function enrollmentsSummary(enrollments: Enrollment[]) {
  const view = (e: Enrollment) => ({ id: e.id, jwt: e.jwt, token: e.token, expiresAt: iso(e.expiresAt) });
  const ott = enrollments.find((e) => e.method === 'ott');
  const updb = enrollments.find((e) => e.method === 'updb');
  const ottca = enrollments.find((e) => e.method === 'ottca');
  return {
    ...(ott ? { ott: view(ott) } : {}),
    ...(updb ? { updb: { ...view(updb), username: updb.username ?? '' } } : {}),
    ...(ottca ? { ottca: { ...view(ottca), caId: ottca.caId ?? '' } } : {}),
  };
}

/** One identity with its authenticators, pending enrollments, client info and session presence (detail and lists). */
export function identityDetailView(detail: IdentityDetail) {
  // Added to the fresh summary rather than spread into a new object (Node 20's spread of many fields is slow).
  return Object.assign(identitySummaryView(detail), {
    hasApiSession: detail.hasApiSession,
    isMfaEnabled: detail.isMfaEnabled,
    authenticators: authenticatorsSummary(detail.authenticators),
    enrollment: enrollmentsSummary(detail.enrollments),
    sdkInfo: detail.identity.sdkInfo,
    envInfo: detail.identity.envInfo,
    appData: {},
    permissions: [],
    hasEdgeRouterConnection: detail.hasEdgeRouterConnection,
    edgeRouterConnectionStatus: detail.hasEdgeRouterConnection ? ('online' as const) : ('offline' as const),
    defaultHostingCost: detail.identity.defaultHostingCost,
    defaultHostingPrecedence: detail.identity.defaultHostingPrecedence,
    serviceHostingCosts: detail.identity.serviceHostingCosts,
    serviceHostingPrecedences: detail.identity.serviceHostingPrecedences,
  });
}

/** An authenticator as management sees it; there is no hash to leave out, the domain value has none. */
export function authenticatorView(authenticator: Authenticator) {
  return {
    id: authenticator.id,
    method: authenticator.method,
    identityId: authenticator.identityId,
    identity: ref('identities', authenticator.identityId, authenticator.identityName),
    ...(authenticator.username === null ? {} : { username: authenticator.username }),
    ...(authenticator.certFingerprint === null ? {} : { fingerprint: authenticator.certFingerprint }),
    ...(authenticator.certPem === null ? {} : { certPem: authenticator.certPem }),
    isIssuedByNetwork: authenticator.isIssuedByNetwork,
    isExtendRequested: authenticator.isExtendRequested,
    isKeyRollRequested: authenticator.isKeyRollRequested,
    extendRequestedAt: isoOrNull(authenticator.extendRequestedAt),
    lastAuthResolvedToRoot: false,
    lastExtendRolledKeys: authenticator.lastExtendRolledKeys,
    createdAt: iso(authenticator.createdAt),
    updatedAt: iso(authenticator.updatedAt),
    tags: {},
    _links: selfLink('authenticators', authenticator.id),
  };
}
