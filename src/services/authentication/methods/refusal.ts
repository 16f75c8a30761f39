/**
 * The one answer to every refused credential (401 INVALID_AUTH), shared by all login methods so that no method can
 * word a refusal differently: answers must not tell an attacker which usernames exist or why a login failed. The
 * reason and the identity ride along on the error, out of the response, for the security log only.
 */
import { ApiError } from '../../../errors/api-error.js';

/** Why a login was refused, kept beside the error for the security log; the client is never told. */
const REFUSAL_REASON = Symbol('refusal reason');
const REFUSAL_IDENTITY = Symbol('refused identity');

type MarkedError = ApiError & { [REFUSAL_REASON]?: string; [REFUSAL_IDENTITY]?: string };

/** The one answer to every refused credential, remembering the reason and identity for the security log. */
export function refuse(reason: string, identityId?: string): ApiError {
  const error = new ApiError('INVALID_AUTH', { message: 'The authentication request failed' });
  Object.assign(error, { [REFUSAL_REASON]: reason, [REFUSAL_IDENTITY]: identityId });
  return error;
}

/**
 * What the security log records of a 401: the reason and identity `refuse` remembered, else the error's own message
 * (a 401 thrown elsewhere, e.g. by the external JWT checks or a missing client certificate).
 */
export function refusalOf(error: ApiError): { reason: string; identityId?: string } {
  const marked = error as MarkedError;
  return { reason: marked[REFUSAL_REASON] ?? error.message, ...(marked[REFUSAL_IDENTITY] ? { identityId: marked[REFUSAL_IDENTITY] } : {}) };
}
