/**
 * The discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2) for the issuer of this bind point.
 */
import type { OidcEndpoint } from '../context.js';
import { GRANT_TYPES } from '../grants/index.js';

export const discovery: OidcEndpoint = {
  method: 'GET',
  url: '/oidc/.well-known/openid-configuration',
  async handler({ where, provider }) {
    const issuer = where.issuer;
    return {
      issuer,
      authorization_endpoint: `${issuer}/authorization`,
      token_endpoint: `${issuer}/token`,
      userinfo_endpoint: `${issuer}/userinfo`,
      jwks_uri: `${issuer}/keys`,
      end_session_endpoint: `${issuer}/end_session`,
      revocation_endpoint: `${issuer}/revoke`,
      scopes_supported: ['openid', 'offline_access'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      // From the grant registry, so the document names exactly what the token endpoint answers.
      grant_types_supported: [...GRANT_TYPES],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [...new Set((await provider.jwks()).keys.map((k) => k.alg))],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'amr', 'azp', 'name', 'sid'],
      // RFC 9207 §3: the `iss` parameter is sent with every authorization response.
      authorization_response_iss_parameter_supported: true,
      svc_endpoints: {
        password: `${issuer}/login/password`,
        cert: `${issuer}/login/cert`,
        ext_jwt: `${issuer}/login/ext-jwt`,
        totp: `${issuer}/login/totp`,
        totp_enroll: `${issuer}/login/totp/enroll`,
        totp_enroll_verify: `${issuer}/login/totp/enroll/verify`,
        auth_queries: `${issuer}/login/auth-queries`,
      },
    };
  },
};

/** The same document at the root (spec: OIDC provider endpoints). */
export const rootDiscovery: OidcEndpoint = { ...discovery, url: '/.well-known/openid-configuration' };
