/**
 * What a posted posture response may hold (reference `postureResponse*Create`; facts §B2), turned into the slots it
 * fills. Checked whole before anything is stored: `id` must name a posture check whose type the response answers
 * (ENDPOINT_STATE names none), each type's required fields present and no field of another type. MFA is never
 * posted: it is proven by answering TOTP. Every refusal is 400 COULD_NOT_VALIDATE naming the field (`id`, or
 * `3.id` for the fourth response of a bulk).
 */
import type { PostureCheck, PostureCheckTypeId } from '../../domain/posture-check.js';
import { processSlot, type PostureSlot } from '../../domain/posture-response.js';
import { ApiError } from '../../errors/api-error.js';

export const POSTURE_RESPONSE_TYPE_IDS = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'ENDPOINT_STATE', 'MFA'] as const;
export type PostureResponseTypeId = (typeof POSTURE_RESPONSE_TYPE_IDS)[number];

/** One response as the wire gives it (JSON types already checked by the schema). */
export interface PostureResponseInput {
  id: string;
  typeId: PostureResponseTypeId;
  type?: string;
  version?: string;
  build?: string;
  macAddresses?: string[];
  domain?: string;
  path?: string;
  isRunning?: boolean;
  hash?: string;
  signerFingerprints?: string[];
  woken?: boolean;
  unlocked?: boolean;
}

const PROCESS_FIELDS = ['path', 'isRunning', 'hash', 'signerFingerprints'];
/** The fields of each response type beside `id` and `typeId`. */
const RESPONSE_FIELDS: Record<PostureResponseTypeId, readonly string[]> = {
  OS: ['type', 'version', 'build'],
  MAC: ['macAddresses'],
  DOMAIN: ['domain'],
  PROCESS: PROCESS_FIELDS,
  PROCESS_MULTI: PROCESS_FIELDS,
  ENDPOINT_STATE: ['woken', 'unlocked'],
  MFA: [],
};
const ALL_FIELDS = new Set(Object.values(RESPONSE_FIELDS).flat());

/** The check types a response type answers: PROCESS responses feed PROCESS_MULTI checks too, one per path. */
const ANSWERS: Record<Exclude<PostureResponseTypeId, 'ENDPOINT_STATE' | 'MFA'>, readonly PostureCheckTypeId[]> = {
  OS: ['OS'],
  MAC: ['MAC'],
  DOMAIN: ['DOMAIN'],
  PROCESS: ['PROCESS', 'PROCESS_MULTI'],
  PROCESS_MULTI: ['PROCESS_MULTI'],
};

function invalid(field: string, reason: string, value?: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value } });
}

/** The ids of checks that the responses name (ENDPOINT_STATE names none; MFA is refused anyway). */
export function namedCheckIds(responses: readonly PostureResponseInput[]): string[] {
  return [...new Set(responses.filter((r) => r.typeId !== 'ENDPOINT_STATE' && r.typeId !== 'MFA').map((r) => r.id))];
}

/**
 * The slots `response` fills, received `now`; throws naming the field when it is refused. `at` prefixes field names
 * (`''` for a single response, `'3.'` in a bulk).
 */
export function slotsOf(response: PostureResponseInput, checks: ReadonlyMap<string, PostureCheck>, now: Date, at: string): PostureSlot[] {
  const { typeId } = response;
  if (typeId === 'MFA') throw invalid(`${at}typeId`, 'MFA is not posted: a session proves it by answering TOTP (authenticate/mfa)', typeId);
  const given = response as unknown as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (given[key] !== undefined && ALL_FIELDS.has(key) && !RESPONSE_FIELDS[typeId].includes(key)) {
      throw invalid(`${at}${key}`, `is not a field of a ${typeId} response`, given[key]);
    }
  }
  if (typeId === 'ENDPOINT_STATE') {
    const events = (['woken', 'unlocked'] as const).filter((event) => response[event] === true);
    return events.map((event) => ({ slot: `ENDPOINT_STATE:${event}`, facts: { typeId, event }, receivedAt: now }));
  }
  const check = checks.get(response.id);
  if (!check) throw invalid(`${at}id`, 'names no posture check', response.id);
  if (!ANSWERS[typeId].includes(check.typeId)) throw invalid(`${at}typeId`, `does not answer the check's type, ${check.typeId}`, typeId);
  const required = (field: 'type' | 'version' | 'macAddresses' | 'domain') => {
    const value = response[field];
    if (value === undefined) throw invalid(`${at}${field}`, `is required for a ${typeId} response`);
    return value;
  };
  switch (typeId) {
    case 'OS': {
      const build = response.build;
      return [{ slot: 'OS', facts: { typeId, type: required('type') as string, version: required('version') as string, ...(build === undefined ? {} : { build }) }, receivedAt: now }];
    }
    case 'MAC':
      return [{ slot: 'MAC', facts: { typeId, macAddresses: required('macAddresses') as string[] }, receivedAt: now }];
    case 'DOMAIN':
      return [{ slot: 'DOMAIN', facts: { typeId, domain: required('domain') as string }, receivedAt: now }];
    default: {
      const path = processPath(response, check, at);
      const facts = {
        typeId: 'PROCESS' as const,
        path,
        isRunning: response.isRunning ?? false,
        ...(response.hash === undefined ? {} : { hash: response.hash }),
        signerFingerprints: response.signerFingerprints ?? [],
      };
      return [{ slot: processSlot(path), facts, receivedAt: now }];
    }
  }
}

/**
 * The process a response reports on: one the check watches. A PROCESS check's path is the default; a PROCESS_MULTI
 * check's responses must say which of its paths they are about (they are matched by path).
 */
function processPath(response: PostureResponseInput, check: PostureCheck, at: string): string {
  if (check.typeId === 'PROCESS') {
    if (response.path !== undefined && response.path !== check.process.path) throw invalid(`${at}path`, "is not the path of the check's process", response.path);
    return check.process.path;
  }
  if (check.typeId !== 'PROCESS_MULTI') throw invalid(`${at}typeId`, `does not answer the check's type, ${check.typeId}`, response.typeId);
  if (response.path === undefined) throw invalid(`${at}path`, 'is required to answer a PROCESS_MULTI check');
  if (!check.processes.some((entry) => entry.path === response.path)) throw invalid(`${at}path`, "is not one of the check's process paths", response.path);
  return response.path;
}
