/**
 * The response shapes the public Edge API v1 definitions require, written out here field by field (tests must not
 * read the reference files), and a checker that lists every field of a shape a value lacks or holds with the wrong
 * JSON type. Builders and checkers only: the tests assert on what `shapeProblems` returns.
 *
 * A shape maps a field to its JSON type(s): `'string'`, `'integer'`, `'number'`, `'boolean'`, `'object'`, `'array'`,
 * `'null'`, or several joined by `|` (a Go pointer the reference controller sends as null when unset). A dotted
 * field (`primary.cert.allowed`) is looked up inside nested objects.
 */

export type Shape = Readonly<Record<string, string>>;

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function lookUp(value: unknown, path: string): { found: boolean; value: unknown } {
  let node = value;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return { found: false, value: undefined };
    node = (node as Record<string, unknown>)[key];
  }
  return { found: true, value: node };
}

/** `field: missing` or `field: expected string|null, got integer` for each departure of `value` from `shape`. */
export function shapeProblems(value: unknown, shape: Shape): string[] {
  const problems: string[] = [];
  for (const [field, expected] of Object.entries(shape)) {
    const { found, value: fieldValue } = lookUp(value, field);
    if (!found) {
      problems.push(`${field}: missing`);
      continue;
    }
    const actual = jsonTypeOf(fieldValue);
    const allowed = expected.split('|');
    // An integer is also a number.
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) problems.push(`${field}: expected ${expected}, got ${actual}`);
  }
  return problems;
}

/** The problems of every item of a list, each prefixed with its index. */
export function listShapeProblems(items: readonly unknown[], shape: Shape): string[] {
  return items.flatMap((item, index) => shapeProblems(item, shape).map((problem) => `[${index}].${problem}`));
}

/** baseEntity: `tags` is optional in the reference; the controller always sends it, as an object. */
export const BASE_ENTITY: Shape = { id: 'string', createdAt: 'string', updatedAt: 'string', _links: 'object', tags: 'object' };

/** entityRef: every field optional in the reference; ours always carry id and name. */
export const ENTITY_REF: Shape = { id: 'string', name: 'string' };

/** `{data, meta}` (reference *Envelope: both required). */
export const ENVELOPE: Shape = { data: 'object', meta: 'object' };
export const LIST_ENVELOPE: Shape = { data: 'array', meta: 'object', 'meta.pagination.limit': 'integer', 'meta.pagination.offset': 'integer', 'meta.pagination.totalCount': 'integer' };

/** createLocation (201 of every create). */
export const CREATE_LOCATION: Shape = { id: 'string', _links: 'object' };

/**
 * apiSessionDetail: the required fields (cachedUpdatedAt among them, issue 40), with the optional ones issue 11 asks for (lastActivityAt,
 * cachedLastActivityAt, isCertExtendRequested, isCertKeyRollRequested, improperClientCertChain).
 */
export const API_SESSION_DETAIL: Shape = {
  ...BASE_ENTITY,
  authQueries: 'array',
  authenticatorId: 'string',
  configTypes: 'array',
  identity: 'object',
  'identity.id': 'string',
  'identity.name': 'string',
  identityId: 'string',
  ipAddress: 'string',
  isCertExtendable: 'boolean',
  isMfaComplete: 'boolean',
  isMfaRequired: 'boolean',
  token: 'string',
  lastActivityAt: 'string',
  cachedLastActivityAt: 'string',
  cachedUpdatedAt: 'string',
  isCertExtendRequested: 'boolean',
  isCertKeyRollRequested: 'boolean',
  improperClientCertChain: 'boolean',
};

/** currentApiSessionDetail: the authenticate answer and GET /current-api-session. */
export const CURRENT_API_SESSION_DETAIL: Shape = { ...API_SESSION_DETAIL, expiresAt: 'string', expirationSeconds: 'integer' };

/** identityDetail (management detail and list items, current-identity), with appData and defaultHostingPrecedence. */
export const IDENTITY_DETAIL: Shape = {
  ...BASE_ENTITY,
  authPolicy: 'object',
  'authPolicy.id': 'string',
  authPolicyId: 'string',
  authenticators: 'object',
  defaultHostingCost: 'integer',
  defaultHostingPrecedence: 'string',
  disabled: 'boolean',
  disabledAt: 'string|null',
  disabledUntil: 'string|null',
  edgeRouterConnectionStatus: 'string',
  enrollment: 'object',
  envInfo: 'object',
  externalId: 'string|null',
  hasApiSession: 'boolean',
  hasEdgeRouterConnection: 'boolean',
  isAdmin: 'boolean',
  isDefaultAdmin: 'boolean',
  isMfaEnabled: 'boolean',
  name: 'string',
  permissions: 'array',
  roleAttributes: 'array',
  sdkInfo: 'object',
  serviceHostingCosts: 'object',
  serviceHostingPrecedences: 'object',
  type: 'object',
  'type.id': 'string',
  typeId: 'string',
  appData: 'object',
};

export const AUTHENTICATOR_DETAIL: Shape = { ...BASE_ENTITY, identity: 'object', 'identity.id': 'string', identityId: 'string', method: 'string' };

export const AUTH_POLICY_DETAIL: Shape = {
  ...BASE_ENTITY,
  name: 'string',
  'primary.cert.allowed': 'boolean',
  'primary.cert.allowExpiredCerts': 'boolean',
  'primary.cert.allowedCas': 'array',
  'primary.extJwt.allowed': 'boolean',
  'primary.extJwt.allowedSigners': 'array',
  'primary.updb.allowed': 'boolean',
  'primary.updb.lockoutDurationMinutes': 'integer',
  'primary.updb.maxAttempts': 'integer',
  'primary.updb.minPasswordLength': 'integer',
  'primary.updb.requireMixedCase': 'boolean',
  'primary.updb.requireNumberChar': 'boolean',
  'primary.updb.requireSpecialChar': 'boolean',
  'secondary.requireTotp': 'boolean',
  'secondary.requireExtJwtSigner': 'string|null',
};

/** externalJwtSignerDetail (management). */
export const EXTERNAL_JWT_SIGNER_DETAIL: Shape = {
  ...BASE_ENTITY,
  audience: 'string',
  certPem: 'string|null',
  claimsProperty: 'string',
  clientId: 'string|null',
  commonName: 'string',
  enabled: 'boolean',
  externalAuthUrl: 'string|null',
  fingerprint: 'string|null',
  issuer: 'string',
  jwksEndpoint: 'string|null',
  kid: 'string|null',
  name: 'string',
  notAfter: 'string|null',
  notBefore: 'string|null',
  scopes: 'array',
  targetToken: 'string',
  useExternalId: 'boolean',
};

/** clientExternalJwtSignerDetail (client list). */
export const CLIENT_EXTERNAL_JWT_SIGNER_DETAIL: Shape = { ...BASE_ENTITY, externalAuthUrl: 'string|null', name: 'string' };

export const ENROLLMENT_DETAIL: Shape = { ...BASE_ENTITY, expiresAt: 'string', method: 'string', token: 'string' };

export const CONTROLLER_DETAIL: Shape = { ...BASE_ENTITY, certPem: 'string', fingerprint: 'string', isOnline: 'boolean', lastJoinedAt: 'string', name: 'string' };

export const SPEC_DETAIL: Shape = { ...BASE_ENTITY, name: 'string' };

export const DETAIL_MFA: Shape = { ...BASE_ENTITY, isVerified: 'boolean' };
export const DETAIL_MFA_RECOVERY_CODES: Shape = { ...BASE_ENTITY, recoveryCodes: 'array' };

/** version: every field optional in the reference; the controller fills them all. */
export const VERSION: Shape = { version: 'string', revision: 'string', buildDate: 'string', runtimeVersion: 'string', capabilities: 'array', apiVersions: 'object' };
/** apiVersion: `path` is required. */
export const API_VERSION: Shape = { path: 'string' };

/**
 * edgeRouterDetail: baseEntity, the required commonEdgeRouterProperties, and its own required fields (the reference
 * lists versionInfo's five at the top level, so they are there too).
 */
export const EDGE_ROUTER_DETAIL: Shape = {
  ...BASE_ENTITY,
  name: 'string',
  hostname: 'string',
  supportedProtocols: 'object',
  syncStatus: 'string',
  isOnline: 'boolean',
  cost: 'integer|null',
  noTraversal: 'boolean|null',
  disabled: 'boolean',
  isVerified: 'boolean',
  isTunnelerEnabled: 'boolean',
  roleAttributes: 'array',
  os: 'string',
  version: 'string',
  arch: 'string',
  buildDate: 'string',
  revision: 'string',
  enrollmentJwt: 'string|null',
  enrollmentToken: 'string|null',
  enrollmentCreatedAt: 'string|null',
  enrollmentExpiresAt: 'string|null',
};

/** postureCheckDetail (the fields every type has); each type adds its own, see POSTURE_CHECK_TYPE_FIELDS. */
export const POSTURE_CHECK_DETAIL: Shape = { ...BASE_ENTITY, name: 'string', typeId: 'string', version: 'integer', roleAttributes: 'array' };

/** The required fields of each postureCheck*Detail beyond postureCheckDetail. */
export const POSTURE_CHECK_TYPE_FIELDS: Readonly<Record<string, Shape>> = {
  OS: { operatingSystems: 'array' },
  MAC: { macAddresses: 'array' },
  DOMAIN: { domains: 'array' },
  PROCESS: { process: 'object', 'process.osType': 'string', 'process.path': 'string' },
  PROCESS_MULTI: { semantic: 'string', processes: 'array' },
  MFA: {},
};

/** postureCheckTypeDetail. */
export const POSTURE_CHECK_TYPE_DETAIL: Shape = { ...BASE_ENTITY, name: 'string', operatingSystems: 'array', version: 'string' };

/** terminatorDetail. */
export const TERMINATOR_DETAIL: Shape = {
  ...BASE_ENTITY,
  serviceId: 'string',
  service: 'object',
  'service.id': 'string',
  routerId: 'string',
  router: 'object',
  'router.id': 'string',
  binding: 'string',
  address: 'string',
  identity: 'string',
  cost: 'integer',
  precedence: 'string',
  dynamicCost: 'integer',
};

/** configTypeDetail (management). */
export const CONFIG_TYPE_DETAIL: Shape = { ...BASE_ENTITY, name: 'string', schema: 'object' };

/** configDetail: `configType` is an entityRef. */
export const CONFIG_DETAIL: Shape = { ...BASE_ENTITY, name: 'string', configTypeId: 'string', configType: 'object', 'configType.id': 'string', 'configType.name': 'string', data: 'object' };

/** serviceDetail (management): `config`, `permissions` and `postureQueries` are required too. */
export const SERVICE_DETAIL: Shape = {
  ...BASE_ENTITY,
  name: 'string',
  config: 'object',
  configs: 'array',
  encryptionRequired: 'boolean',
  maxIdleTimeMillis: 'integer',
  permissions: 'array',
  postureQueries: 'array',
  roleAttributes: 'array',
  terminatorStrategy: 'string',
};

/** currentIdentityEdgeRouterDetail (client `GET /current-identity/edge-routers`): baseEntity and commonEdgeRouterProperties. */
export const CURRENT_IDENTITY_EDGE_ROUTER_DETAIL: Shape = {
  ...BASE_ENTITY,
  name: 'string',
  hostname: 'string',
  isOnline: 'boolean',
  supportedProtocols: 'object',
  syncStatus: 'string',
  cost: 'integer|null',
  noTraversal: 'boolean|null',
  disabled: 'boolean',
};
