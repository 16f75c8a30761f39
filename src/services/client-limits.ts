/**
 * What a non-administrator may keep in the store through the client API (issue 40, must-have 4; decision 0058).
 * Without these bounds one device identity grew the store by tens of megabytes in seconds: a megabyte of `tags` on
 * every session, thousands of ephemeral certificates on one API session. Each bound is a named constant, checked by
 * the domain that stores the thing, before anything is written (a refusal changes nothing). Administrators are trusted
 * operators and are bounded only by the listeners' body limit.
 *
 * A tags refusal is 400 COULD_NOT_VALIDATE naming `tags` (the request is malformed for a client); a count refusal is
 * 409 API_SESSION_LIMIT_REACHED naming the limit and the count held: the request would be fine, but the API
 * session's current state refuses it until the client deletes something of its own.
 */
import type { Tags } from '../domain/policy.js';
import { ApiError } from '../errors/api-error.js';

/** The most keys a client's `tags` may have. */
export const MAX_CLIENT_TAG_KEYS = 32;
/** The most bytes a client's `tags` may take, as UTF-8 JSON (what the store keeps). */
export const MAX_CLIENT_TAG_BYTES = 4096;
/**
 * The most sessions one API session holds. A session is per service and type, so this is also the most services
 * one login can dial or bind at once; generous for a tunneler hosting many services, and with tags bounded a few
 * megabytes at most.
 */
export const MAX_SESSIONS_PER_API_SESSION = 4096;
/**
 * The most unexpired ephemeral certificates one API session holds. An SDK needs one at a time, and a new one when
 * it expires (12 hours), so a few cover key rolls and restarts.
 */
export const MAX_CERTIFICATES_PER_API_SESSION = 16;
/**
 * The most posture response slots one API session holds (one per fact: the OS, MAC addresses, domain, wake and
 * unlock, and one per process path a check watches). The checks an administrator defines bound it already; this
 * bounds it whatever they define, leaving room for four checks of 256 processes each (the most one check names).
 */
export const MAX_POSTURE_SLOTS_PER_API_SESSION = 1024;

/** Who is asking: administrators are not bounded. */
export interface LimitedCaller {
  identity: { isAdmin: boolean };
}

/** Whether the caller is bounded by these limits (everyone but an administrator). */
export const isLimited = (caller: LimitedCaller): boolean => !caller.identity.isAdmin;

/**
 * Refuses `tags` beyond the key count or the byte size, with 400 naming `field`, the limit and the value found.
 * Null or absent tags pass.
 */
export function checkClientTags(tags: Tags | null | undefined, field = 'tags'): void {
  if (!tags) return;
  const keys = Object.keys(tags).length;
  if (keys > MAX_CLIENT_TAG_KEYS) {
    throw new ApiError('COULD_NOT_VALIDATE', {
      message: `The request is invalid: ${field} has ${keys} keys; at most ${MAX_CLIENT_TAG_KEYS} are accepted`,
      cause: { field, reason: `at most ${MAX_CLIENT_TAG_KEYS} keys`, value: keys, limit: MAX_CLIENT_TAG_KEYS },
    });
  }
  const bytes = Buffer.byteLength(JSON.stringify(tags), 'utf8');
  if (bytes > MAX_CLIENT_TAG_BYTES) {
    throw new ApiError('COULD_NOT_VALIDATE', {
      message: `The request is invalid: ${field} takes ${bytes} bytes as JSON; at most ${MAX_CLIENT_TAG_BYTES} are accepted`,
      cause: { field, reason: `at most ${MAX_CLIENT_TAG_BYTES} bytes as JSON`, value: bytes, limit: MAX_CLIENT_TAG_BYTES },
    });
  }
}

/**
 * The refusal of one more `what` (e.g. "sessions") when the API session holds `held` and may hold `limit`: 409
 * naming the limit, what is held, and how to make room.
 */
export function limitReached(what: string, held: number, limit: number, makeRoom: string): ApiError {
  return new ApiError('API_SESSION_LIMIT_REACHED', {
    message: `This API session already holds ${held} ${what}, the most it may hold (${limit}); ${makeRoom}`,
    cause: { field: what, reason: `at most ${limit} per API session`, value: held, limit },
  });
}
