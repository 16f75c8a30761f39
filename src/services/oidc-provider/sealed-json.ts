/**
 * Values the provider hands out sealed and reads back (auth request ids, authorization codes): JSON fields sealed
 * with AES-256-GCM for one purpose (crypto/secret-box.ts), and what they stand for kept opened, by value, in a
 * bounded LRU, since a login opens each of them more than once. A value is only ever answered with what opening that
 * same value gives, so the cache changes no answer.
 */
import type { SecretBox } from '../../crypto/secret-box.js';
import type { OidcAuthRequest } from '../../domain/oidc.js';
import { createLru } from '../../shared/lru.js';

/** Values kept opened: a few KiB each, so a full cache holds some megabytes. */
const DEFAULT_OPENED_CACHE_SIZE = 4096;

export interface SealedJson<Fields, Opened> {
  /** Seals `fields`; what the sealed value stands for. */
  seal(fields: Fields): Opened;
  /** What a sealed value stands for, or undefined when it is not one of ours, for this purpose, with valid fields. */
  open(value: string): Opened | undefined;
}

/**
 * @param context the purpose, bound into every seal as additional data: a value sealed for another never opens here
 * @param accept the fields of parsed JSON when each has its type, else undefined
 * @param make what a sealed value and its fields stand for (frozen: one object is handed to every caller)
 */
export function sealedJson<Fields, Opened>(
  box: SecretBox,
  context: string,
  accept: (parsed: Partial<Fields>) => Fields | undefined,
  make: (value: string, fields: Fields) => Opened,
  openedCacheSize = DEFAULT_OPENED_CACHE_SIZE,
): SealedJson<Fields, Opened> {
  const opened = createLru<string, Opened>(openedCacheSize);
  return {
    seal(fields) {
      const value = box.seal(JSON.stringify(fields), context);
      const made = make(value, fields);
      opened.set(value, made);
      return made;
    },
    open(value) {
      const known = opened.get(value);
      if (known !== undefined) return known;
      let parsed: unknown;
      try {
        parsed = JSON.parse(box.open(value, context));
      } catch {
        return undefined;
      }
      const fields = parsed !== null && typeof parsed === 'object' ? accept(parsed as Partial<Fields>) : undefined;
      if (fields === undefined) return undefined;
      const made = make(value, fields);
      opened.set(value, made);
      return made;
    },
  };
}

/** Type checks of sealed fields. */
export const text = (value: unknown): value is string => typeof value === 'string';
export const textOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';
export const texts = (value: unknown): value is string[] => Array.isArray(value) && value.every(text);

/** What every sealed value of an authorization request carries of it, short-named: sealed values travel in URLs. */
export interface SealedRequestFields {
  /** redirect_uri */
  r: string;
  /** scope */
  s: string;
  /** state */
  st: string | null;
  /** nonce */
  n: string | null;
  /** code_challenge (S256) */
  cc: string;
  /** issuer */
  i: string;
}

/** The sealed fields of `request`. */
export function requestFields(request: Pick<OidcAuthRequest, 'redirectUri' | 'scope' | 'state' | 'nonce' | 'codeChallenge' | 'issuer'>): SealedRequestFields {
  return { r: request.redirectUri, s: request.scope, st: request.state, n: request.nonce, cc: request.codeChallenge, i: request.issuer };
}

/** Whether parsed fields have the request's fields with their types. */
export function hasRequestFields(f: Partial<SealedRequestFields>): boolean {
  return text(f.r) && text(f.s) && textOrNull(f.st) && textOrNull(f.n) && text(f.cc) && text(f.i);
}
