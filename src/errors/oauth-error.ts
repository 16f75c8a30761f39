/**
 * An error of the OIDC provider, rendered in the RFC 6749 shape `{error, error_description}` (RFC 6749 §5.2) rather
 * than the Edge API envelope. `redirect` is true once the redirect URI is trusted: the authorization endpoint then
 * reports the error to the client by redirect (RFC 6749 §4.1.2.1) instead of showing it to the user.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_token'
  | 'server_error';

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly redirect: boolean;

  constructor(error: OAuthErrorCode, description: string, options: { status?: number; redirect?: boolean } = {}) {
    super(description);
    this.name = 'OAuthError';
    this.error = error;
    this.status = options.status ?? (error === 'invalid_token' ? 401 : 400);
    this.redirect = options.redirect ?? false;
  }
}

export function isOAuthError(value: unknown): value is OAuthError {
  return value instanceof OAuthError;
}
