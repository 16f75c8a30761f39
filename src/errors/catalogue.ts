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
  INVALID_AUTH: { status: 401, message: 'The authentication request failed' },
  INVALID_AUTH_METHOD: { status: 400, message: 'The supplied authentication method is not valid' },
  RATE_LIMITED: {
    status: 429,
    message: 'The requested operation is rate limited and the rate limit has been exceeded. Please try again later',
  },
  TIMEOUT: { status: 503, message: 'The requested operation took too much time to reply' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
