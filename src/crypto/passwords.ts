/**
 * Password hashing with argon2id (OWASP parameters: 19 MiB, 2 passes, 1 lane). The encoded hash carries its
 * parameters, so stronger settings later still verify old hashes.
 */
import { hash, verify } from '@node-rs/argon2';

const ARGON2ID = 2; // the Algorithm.Argon2id enum value; a const enum cannot be imported under isolated modules

const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The PHC-encoded argon2id hash of a password. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** Whether `password` matches `encoded` (argon2's own comparison is constant-time). */
export async function verifyPassword(encoded: string, password: string): Promise<boolean> {
  try {
    return await verify(encoded, password);
  } catch {
    return false;
  }
}
