/**
 * The one catalogue of API error codes: stable UPPER_SNAKE codes, their HTTP status and default message.
 * Codes and messages follow the public Edge API v1 so that existing clients recognise them
 * (see shared/reference/openziti-edge-api-facts.md §4). Add a code here before throwing it anywhere.
 */
export const ERROR_CATALOGUE = {
  NOT_FOUND: { status: 404, message: 'The resource requested was not found or is no longer available' },
  UNHANDLED: { status: 500, message: 'An unhandled error occurred' },
  COULD_NOT_VALIDATE: {
    status: 400,
    message: 'The supplied request contains an invalid document or no valid accept content were available, see cause',
  },
  UNAUTHORIZED: {
    status: 401,
    message: 'The request could not be completed. The session is not authorized or the credentials are invalid',
  },
  FORBIDDEN: { status: 403, message: 'The session is authenticated but not permitted to perform this operation' },
  INVALID_FILTER: { status: 400, message: 'The filter query supplied is invalid' },
  INVALID_PAGINATION: { status: 400, message: 'The pagination properties provided are invalid' },
  INVALID_SORT_IDENTIFIER: { status: 400, message: 'The sort order supplied is invalid' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'The resource requested does not support this HTTP verb' },
  COULD_NOT_PARSE_BODY: { status: 400, message: 'The body of the request could not be parsed' },
  REQUEST_ENTITY_TOO_LARGE: { status: 413, message: 'The request body exceeds the maximum accepted size' },
  INVALID_CONTENT_TYPE: { status: 415, message: 'The content type supplied is not acceptable' },
  // The server's own refusals of a request's framing. The Edge API v1 has no codes for these; the names are the
  // HTTP reason phrases (RFC 9110 §15.5, RFC 6585 §5), in the catalogue's style.
  COULD_NOT_PARSE_REQUEST: { status: 400, message: 'The request is not well-formed HTTP' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time' },
  URI_TOO_LONG: { status: 414, message: 'The request URI is longer than the server accepts' },
  EXPECTATION_FAILED: { status: 417, message: 'The expectation given in the Expect header cannot be met' },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431, message: 'The request header fields are larger than the server accepts' },
  INVALID_AUTH: { status: 401, message: 'The authentication request failed' },
  INVALID_AUTH_METHOD: { status: 400, message: 'The supplied authentication method is not valid' },
  RATE_LIMITED: {
    status: 429,
    message: 'The requested operation is rate limited and the rate limit has been exceeded. Please try again later',
  },
  TIMEOUT: { status: 503, message: 'The requested operation took too much time to reply' },
  STORE_UNAVAILABLE: { status: 503, message: 'The controller cannot reach its store at the moment; try again shortly' },
  NOT_ACCEPTABLE: { status: 406, message: 'None of the media types in the Accept header can be produced' },
  ENTITY_CAN_NOT_BE_DELETED: { status: 400, message: 'The entity requested for delete can not be deleted' },
  ENTITY_CAN_NOT_BE_UPDATED: { status: 400, message: 'The entity requested for update can not be updated' },
  REFERENCED_ENTITY_NOT_FOUND: { status: 400, message: 'An entity the request refers to does not exist' },
  CAN_NOT_DELETE_REFERENCED_ENTITY: {
    status: 409,
    message: 'The entity cannot be deleted because it is referenced by another entity, see cause',
  },
  ENROLLMENT_EXPIRED: { status: 400, message: 'The window for this enrollment has expired' },
  ENROLLMENT_EXISTS: { status: 409, message: 'A pending enrollment of this method already exists for the identity' },
  INVALID_ENROLLMENT_TOKEN: { status: 400, message: 'The supplied token is not valid' },
  INVALID_ENROLLMENT_ALREADY_ENROLLED: { status: 410, message: 'The token provided has already been used to enroll' },
  INVALID_ENROLL_METHOD: { status: 400, message: 'The supplied enrollment method is not valid' },
  MISSING_OR_INVALID_CSR: { status: 400, message: 'The supplied enrollment request is missing or contains an invalid CSR' },
  CAN_NOT_UPDATE_AUTHENTICATOR: { status: 409, message: 'The authenticator cannot be updated in this fashion' },
  // Third-party CAs (issue 16; decision 0037). Names as the reference has them.
  CA_ALREADY_VERIFIED: { status: 409, message: 'The CA has already been verified' },
  EXPECTED_PEM_CERTIFICATE: { status: 400, message: 'The body must be one PEM encoded certificate' },
  INVALID_COMMON_NAME: { status: 400, message: "The certificate's common name is not the CA's verification token" },
  CERTIFICATE_FAILED_VALIDATION: { status: 400, message: 'The certificate was not signed by the CA being verified' },
  ENROLLMENT_CA_NOT_VALID: { status: 400, message: 'The CA of this enrollment does not allow it, see cause' },
  ENROLLMENT_NO_VALID_CAS: { status: 400, message: 'No verified CA with auto-enrollment enabled issued the client certificate' },
  CERT_FAILED_VALIDATION: { status: 400, message: 'The client certificate failed validation, see cause' },
  CERT_IN_USE: { status: 409, message: 'The client certificate is already in use by another authenticator' },
  // Router enrollment and certificate extension (issue 16; decision 0038). Names as the reference has them.
  EDGE_ROUTER_ENROLL_COMMON_NAME_INVALID: { status: 400, message: 'The client certificate request common name must be the edge router id' },
  INVALID_ENROLLMENT_KEY: { status: 400, message: 'The enrollment signing key named is not one this controller holds' },
  AUTHENTICATOR_CANNOT_BE_EXTENDED: { status: 400, message: 'The authenticator cannot be extended, see cause' },
  INVALID_CLIENT_CERT: { status: 400, message: 'The client certificate supplied is not the one expected, see cause' },
  MFA_EXISTS: { status: 409, message: 'An MFA record already exists, try removing it' },
  MFA_ENROLLMENT_NOT_STARTED: { status: 404, message: 'MFA enrollment has not been started' },
  MFA_INVALID_TOKEN: { status: 400, message: 'An invalid token/code was provided' },
  MFA_NOT_ENROLLED: { status: 409, message: 'The current identity is not enrolled in MFA' },
  MFA_LOCKED: { status: 429, message: 'Too many invalid MFA codes; try again later' },
  PASSWORD_LOCKED: { status: 429, message: 'Too many wrong passwords; password checks are locked for a while' },
  INVALID_PASSWORD: { status: 400, message: 'The password does not satisfy the auth policy, see cause' },
  // A session needs a router both the identity's and the service's policies name (reference code; its message says
  // "online", which it never checks, so ours does not).
  NO_EDGE_ROUTERS_AVAILABLE: { status: 400, message: 'No edge router is assigned to both the identity and the service' },
  // What one API session may hold (issue 40; decision 0058). The reference has no such bound; 409 because the
  // request is well-formed and the session's state refuses it until the client deletes something of its own.
  API_SESSION_LIMIT_REACHED: { status: 409, message: 'The API session already holds as many of these as it may, see cause' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
