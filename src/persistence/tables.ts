/**
 * The stored records, as Kysely sees them. Timestamps are ISO 8601 text (`2026-01-02T03:04:05.678Z`) on both
 * dialects so that they sort and compare identically (docs/decisions/0002-portable-column-types.md);
 * booleans are native on PostgreSQL and 0/1 on SQLite (read them through `Boolean()`).
 */
import type { Generated } from 'kysely';

export interface ControllersTable {
  id: string;
  name: string;
  cert_pem: string;
  fingerprint: string;
  /** JSON: binding -> [{url, version}] */
  api_addresses: string;
  is_online: boolean | number;
  last_joined_at: string;
  /** ISO time of the latest heartbeat (migration 0018); null before the first. */
  last_heartbeat_at: string | null;
  /** `tls:host:port` routers dial (migration 0029); null without a control listener. */
  ctrl_address: string | null;
  created_at: string;
  updated_at: string;
}

export interface IdentitiesTable {
  id: string;
  name: string;
  type_id: string;
  is_admin: boolean | number;
  is_default_admin: boolean | number;
  auth_policy_id: string | null;
  external_id: string | null;
  /** JSON array of strings */
  role_attributes: string;
  /** JSON object */
  tags: string;
  disabled: boolean | number;
  disabled_at: string | null;
  disabled_until: string | null;
  /** JSON object: `sdkInfo` of the last primary login that carried one (migration 0007; defaults to `{}`). */
  sdk_info: Generated<string>;
  /** JSON object: `envInfo`, likewise. */
  env_info: Generated<string>;
  /** Hosting defaults (migration 0012): `default`, `required` or `failed`, and a cost 0..65535. */
  default_hosting_precedence: Generated<string>;
  default_hosting_cost: Generated<number>;
  /** JSON objects: service id -> precedence, service id -> cost. */
  service_hosting_precedences: Generated<string>;
  service_hosting_costs: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface AuthenticatorsTable {
  id: string;
  identity_id: string;
  method: string;
  username: string | null;
  /** `usernameKey(username)` for password authenticators (migration 0011): what logins look up; unique. */
  username_key: string | null;
  password_hash: string | null;
  cert_fingerprint: string | null;
  cert_pem: string | null;
  /** True for certificates this controller issued (enrollment), which it may also extend. */
  is_issued_by_network: boolean | number;
  /** The certificate an extension issued, until `extend-verify` makes it the authenticator's (migration 0020). */
  unverified_cert_pem: Generated<string | null>;
  /** When `cert_pem` ends (migration 0035), for the expiry board. */
  cert_not_after: Generated<string | null>;
  unverified_cert_fingerprint: Generated<string | null>;
  /** An administrator asked the holder to extend (and roll its key) at its next login (migration 0020). */
  is_extend_requested: Generated<boolean | number>;
  is_key_roll_requested: Generated<boolean | number>;
  extend_requested_at: Generated<string | null>;
  /** Whether the last verified extension changed the public key (migration 0021). */
  last_extend_rolled_keys: Generated<boolean | number>;
  /** The third-party CA the certificate was enrolled through (ottca, CA auto-enrollment; migration 0026). */
  ca_id: Generated<string | null>;
  created_at: string;
  updated_at: string;
}

/** Password lockout per authenticator and scope (`*`, or a client address for the default admin). */
export interface PasswordLockoutsTable {
  authenticator_id: string;
  scope: string;
  identity_id: string;
  attempts: number;
  locked_until: string | null;
  updated_at: string;
}

export interface AuthPoliciesTable {
  id: string;
  name: string;
  is_system: boolean | number;
  /** JSON: {primary: {cert, updb, extJwt}, secondary: {requireTotp, requireExtJwt}} */
  body: string;
  tags: string;
  created_at: string;
  updated_at: string;
}

export interface EnrollmentsTable {
  id: string;
  identity_id: string;
  method: string;
  /** The one-time token (the JWT's `jti`); shown to administrators while pending, as in the reference API. */
  token: string;
  username: string | null;
  jwt: string;
  /** The CA of an `ottca` enrollment (migration 0019); null otherwise. */
  ca_id: string | null;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/**
 * A username key held by exactly one password authenticator or pending updb enrollment (migration 0011): the primary
 * key makes a username unique across both tables, and the holder's row deleting (cascade) releases it.
 */
export interface UsernamesTable {
  username_key: string;
  authenticator_id: string | null;
  enrollment_id: string | null;
  created_at: string;
}

export interface AuditLogTable {
  /** The entry's place in the trail, numbered by the store as entries are written (migration 0024). */
  seq: Generated<number | string>;
  id: string;
  actor_id: string | null;
  actor_name: string;
  action: string;
  entity_type: string;
  entity_id: string;
  /** JSON: what changed (never secrets). */
  details: string;
  created_at: string;
}

export interface ApiSessionsTable {
  id: string;
  identity_id: string;
  /** SHA-256 of the session token, hex; the token itself is never stored. */
  token_hash: string;
  auth_method: string;
  ip_address: string | null;
  created_at: string;
  last_activity_at: string;
  /** JSON array of outstanding secondary factors. */
  outstanding_factors: string;
  mfa_required: boolean | number;
  /** JSON array of the config types asked for at login (migration 0007; defaults to `[]`). */
  config_types: Generated<string>;
  /** The authenticator that proved the login (migration 0007; '' for sessions older than it). */
  authenticator_id: Generated<string>;
  /** The third-party CA the login chain reached (migration 0026); null for the controller's own CAs and other methods. */
  ca_id: Generated<string | null>;
}

export interface MfaEnrollmentsTable {
  id: string;
  identity_id: string;
  is_verified: boolean | number;
  secret_sealed: string;
  recovery_codes_sealed: string;
  last_used_step: number | null;
  failed_attempts: number;
  locked_until: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** An external JWT signer (migration 0006); exactly one of cert_pem and jwks_endpoint is set. */
/** Third-party certificate authorities (migration 0019). */
export interface CasTable {
  id: string;
  name: string;
  cert_pem: string;
  fingerprint: string;
  is_verified: boolean | number;
  verification_token: string;
  is_auth_enabled: boolean | number;
  is_auto_ca_enrollment_enabled: boolean | number;
  is_ott_ca_enrollment_enabled: boolean | number;
  identity_roles: string;
  identity_name_format: string;
  external_id_claim: string | null;
  tags: string;
  created_at: string;
  updated_at: string;
}

export interface ExternalJwtSignersTable {
  id: string;
  name: string;
  issuer: string;
  audience: string;
  enabled: boolean | number;
  cert_pem: string | null;
  jwks_endpoint: string | null;
  kid: string | null;
  claims_property: string;
  use_external_id: boolean | number;
  external_auth_url: string | null;
  client_id: string | null;
  /** JSON array of strings. */
  scopes: string;
  target_token: string;
  /** JSON object. */
  tags: string;
  created_at: string;
  updated_at: string;
}

/**
 * An OIDC authorization request (RFC 6749 §4.1.1) stored while it waits for a secondary factor (a request needing
 * none lives only in its sealed id and then in its sealed code: decision 0046). `code_hash` and `code_attempts` are
 * no longer written (codes are sealed, their refusals counted in oidc_code_refusals).
 */
export interface OidcAuthRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
  state: string | null;
  nonce: string | null;
  code_challenge: string;
  /** The PKCE method; always S256 (RFC 7636 §4.3). */
  method: string;
  issuer: string;
  identity_id: string | null;
  /** JSON array of strings (RFC 8176 values). */
  amr: string;
  status: 'partially_authenticated' | 'authenticated' | 'code_issued' | 'tokens_issued';
  /** JSON array of the secondary factors still outstanding (migration 0004). */
  outstanding_factors: string;
  code_hash: string | null;
  code_expires_at: string | null;
  /** The `z_asid` of the tokens this request leads to. */
  api_session_id: string;
  auth_time: string | null;
  /** JSON array of config type names or ids asked for at login (migration 0008). */
  config_types: string;
  /** Token requests made with this request's code, right or wrong (migration 0008). */
  code_attempts: number;
  /** The authenticator the primary login used and where it came from (migration 0021); copied to the session. */
  authenticator_id: string | null;
  ip_address: string | null;
  /** The third-party CA the login chain reached (migration 0026); copied to the session. */
  ca_id: string | null;
  created_at: string;
  expires_at: string;
}

/** The refusals of one authorization code, by the session id sealed into it (migration 0022, decision 0046). */
export interface OidcCodeRefusalsTable {
  session_id: string;
  refusals: number;
  expires_at: string;
}

/** An OIDC session: what `z_asid` names; revoking it stops every token issued in it. */
export interface OidcSessionsTable {
  id: string;
  identity_id: string;
  client_id: string;
  issuer: string;
  scope: string;
  /** JSON array of strings. */
  amr: string;
  auth_time: string;
  /** JSON array of config types asked for at login: the `z_ct` claim (migration 0008). */
  config_types: string;
  revoked_at: string | null;
  /** The authenticator the login used and where it came from (migration 0021); null when unknown. */
  authenticator_id: string | null;
  ip_address: string | null;
  /** The third-party CA the login chain reached (migration 0026); its withdrawal revokes the session. */
  ca_id: string | null;
  created_at: string;
}

/** One refresh token of a session's rotation family (SHA-256 only). */
export interface OidcRefreshTokensTable {
  id: string;
  session_id: string;
  token_hash: string;
  status: 'active' | 'rotated' | 'revoked';
  created_at: string;
  expires_at: string;
  /** When it was rotated, and the successor it was rotated to, sealed (migration 0008: the reuse grace window). */
  rotated_at: string | null;
  successor_sealed: string | null;
}

/** A key the OIDC provider signs or signed with; retired keys stay published until `publish_until`. */
export interface OidcSigningKeysTable {
  kid: string;
  /** JSON text of the public JWK. */
  public_jwk: string;
  first_used_at: string;
  retired_at: string | null;
  publish_until: string | null;
  /** The controller signing with the key (migration 0018); null for keys published before it. */
  owner: string | null;
  /** JSON array of the `iss` values the owner signs for. */
  issuers: string;
}

/** Columns of every managed resource of the authorization model (migration 0012). */
interface ResourceColumns {
  id: string;
  name: string;
  /** JSON object. */
  tags: string;
  created_at: string;
  updated_at: string;
}

export interface ConfigTypesTable extends ResourceColumns {
  /** JSON Schema (JSON text). */
  schema: string;
}

export interface ConfigsTable extends ResourceColumns {
  config_type_id: string;
  /** JSON object. */
  data: string;
}

export interface ServicesTable extends ResourceColumns {
  /** JSON array of strings. */
  role_attributes: string;
  encryption_required: boolean | number;
  /** bigint: a string on PostgreSQL. */
  max_idle_time_millis: number | string;
  terminator_strategy: string;
}

/** A service's config of one type (at most one per type: the primary key). */
export interface ServiceConfigsTable {
  service_id: string;
  config_type_id: string;
  config_id: string;
}

export interface EdgeRoutersTable extends ResourceColumns {
  role_attributes: string;
  is_tunneler_enabled: boolean | number;
  cost: number;
  no_traversal: boolean | number;
  disabled: boolean | number;
  /** JSON object. */
  app_data: string;
  fingerprint: string | null;
  cert_pem: string | null;
  is_verified: boolean | number;
  enrollment_token_hash: string | null;
  enrollment_jwt: string | null;
  enrollment_expires_at: string | null;
  /** JSON: what the router reported when it last connected. */
  connection: string;
}

/** A router's presence (migration 0028): the controller its control channel was last up at, and its hello. */
export interface RouterPresenceTable {
  router_id: string;
  controller_id: string;
  connected_at: string;
  /** Null while the channel is up. */
  disconnected_at: string | null;
  hostname: string;
  /** JSON {version, revision, buildDate, os, arch}. */
  version_info: string;
  /** JSON protocol -> address. */
  supported_protocols: string;
  /** JSON array. */
  capabilities: string;
  /** JSON [{advertise, groups}]: the link listeners its hello named (migration 0031). */
  link_listeners: Generated<string>;
}

/** A link a router dialed (migration 0031), as its last LinkReport said. */
export interface LinksTable {
  id: string;
  source_router_id: string;
  dest_router_id: string;
  state: string;
  latency_ms: number | null;
  dial_address: string;
  updated_at: string;
}

/** The hash of an enrollment token that was used, and when (migration 0032). */
export interface UsedEnrollmentTokensTable {
  token_hash: string;
  used_at: string;
}

/** The hash of a used external-IdP sign-in `state`, kept until its auth request expires (migration 0037). */
export interface UsedIdpStatesTable {
  state_hash: string;
  expires_at: string;
}

/** A circuit a dial decision opened (migration 0031). */
export interface CircuitsTable {
  id: string;
  service_id: string;
  identity_id: string;
  api_session_id: string | null;
  terminator_id: string;
  ingress_router_id: string;
  egress_router_id: string;
  /** JSON array of router ids. */
  path: string;
  /** JSON array of link ids. */
  links: string;
  created_at: string;
}

export interface PostureChecksTable extends ResourceColumns {
  type_id: string;
  role_attributes: string;
  /** JSON object: the type's own fields. */
  body: string;
}

export interface ServicePoliciesTable extends ResourceColumns {
  type: string;
  semantic: string;
  /** JSON arrays of role expressions. */
  identity_roles: string;
  service_roles: string;
  posture_check_roles: string;
}

export interface EdgeRouterPoliciesTable extends ResourceColumns {
  semantic: string;
  identity_roles: string;
  edge_router_roles: string;
  is_system: boolean | number;
}

export interface ServiceEdgeRouterPoliciesTable extends ResourceColumns {
  semantic: string;
  service_roles: string;
  edge_router_roles: string;
}

export interface TerminatorsTable {
  id: string;
  service_id: string;
  router_id: string;
  binding: string;
  address: string;
  identity: string;
  identity_secret: string | null;
  cost: number;
  precedence: string;
  host_id: string | null;
  tags: string;
  created_at: string;
  updated_at: string;
}

/** The role attribute index: one row per attribute an entity holds. */
export interface EntityAttributesTable {
  entity_type: string;
  attribute: string;
  entity_id: string;
}

/** The policy role index: one row per role of a policy's side. */
export interface PolicyRolesTable {
  policy_type: string;
  side: string;
  kind: string;
  value: string;
  policy_id: string;
}

/** The authorization change log (migration 0014): what changed, numbered in commit order. */
export interface AuthorizationChangesTable {
  seq: Generated<number>;
  entity_type: string;
  entity_id: string;
  changed_at: string;
}

/** Posture responses (migration 0015): one fact a client reported, per API session and slot. */
export interface PostureResponsesTable {
  session_id: string;
  slot: string;
  legacy_session_id: string | null;
  oidc_session_id: string | null;
  type_id: string;
  /** JSON object: the response's own fields. */
  body: string;
  received_at: string;
}

/** A client API session: one API session's right to dial or bind one service (migration 0016). */
export interface EdgeSessionsTable {
  id: string;
  api_session_id: string;
  legacy_session_id: string | null;
  oidc_session_id: string | null;
  identity_id: string;
  service_id: string;
  type: string;
  /** JSON object. */
  tags: string;
  created_at: string;
  updated_at: string;
}

/** When each identity's service list last changed (migration 0017). */
export interface ServiceUpdateMarksTable {
  identity_id: string;
  fingerprint: string;
  changed_at: string;
}

/** The public key of every key that signed enrollment JWTs (migration 0020). */
export interface EnrollmentSigningKeysTable {
  kid: string;
  /** JSON: the public JWK. */
  public_jwk: string;
  created_at: string;
}

/** Ephemeral client certificates bound to one API session (migration 0020). */
export interface ApiSessionCertificatesTable {
  id: string;
  api_session_id: string;
  /** The session row (one of the two is set): deleting it deletes the certificate. */
  legacy_session_id: string | null;
  oidc_session_id: string | null;
  identity_id: string;
  /** SHA-256 of the legacy session token; null for an OIDC session. */
  session_token_hash: string | null;
  subject: string;
  fingerprint: string;
  cert_pem: string;
  valid_from: string;
  valid_to: string;
  created_at: string;
}

export interface Tables {
  controllers: ControllersTable;
  identities: IdentitiesTable;
  authenticators: AuthenticatorsTable;
  api_sessions: ApiSessionsTable;
  mfa_enrollments: MfaEnrollmentsTable;
  password_lockouts: PasswordLockoutsTable;
  auth_policies: AuthPoliciesTable;
  enrollments: EnrollmentsTable;
  usernames: UsernamesTable;
  audit_log: AuditLogTable;
  oidc_auth_requests: OidcAuthRequestsTable;
  oidc_code_refusals: OidcCodeRefusalsTable;
  oidc_sessions: OidcSessionsTable;
  oidc_refresh_tokens: OidcRefreshTokensTable;
  oidc_signing_keys: OidcSigningKeysTable;
  external_jwt_signers: ExternalJwtSignersTable;
  cas: CasTable;
  config_types: ConfigTypesTable;
  configs: ConfigsTable;
  services: ServicesTable;
  service_configs: ServiceConfigsTable;
  edge_routers: EdgeRoutersTable;
  router_presence: RouterPresenceTable;
  links: LinksTable;
  circuits: CircuitsTable;
  used_enrollment_tokens: UsedEnrollmentTokensTable;
  used_idp_states: UsedIdpStatesTable;
  posture_checks: PostureChecksTable;
  service_policies: ServicePoliciesTable;
  edge_router_policies: EdgeRouterPoliciesTable;
  service_edge_router_policies: ServiceEdgeRouterPoliciesTable;
  terminators: TerminatorsTable;
  entity_attributes: EntityAttributesTable;
  policy_roles: PolicyRolesTable;
  authorization_changes: AuthorizationChangesTable;
  service_update_marks: ServiceUpdateMarksTable;
  posture_responses: PostureResponsesTable;
  edge_sessions: EdgeSessionsTable;
  enrollment_signing_keys: EnrollmentSigningKeysTable;
  api_session_certificates: ApiSessionCertificatesTable;
}

export type { Generated };
