/**
 * The registry of primary login methods: one line per method. A new method is a new file in this folder
 * implementing PrimaryMethod (primary-method.ts) plus its line below; the order is the order the "enabled:" list
 * of an unknown-method error shows.
 */
import { createCertMethod } from './cert.js';
import { createExtJwtMethod } from './ext-jwt.js';
import { createPasswordMethod } from './password.js';
import type { PrimaryMethod, PrimaryMethodDeps, PrimaryMethodFactory } from './primary-method.js';

const PRIMARY_METHODS: readonly PrimaryMethodFactory[] = [
  createPasswordMethod, // password (updb)
  createCertMethod, //     cert
  createExtJwtMethod, //   ext-jwt, when external JWT signers are supported
];

/** The methods this controller enables, by name; a factory that returns undefined leaves its method out. */
export function createPrimaryMethods(deps: PrimaryMethodDeps): ReadonlyMap<string, PrimaryMethod> {
  const methods = new Map<string, PrimaryMethod>();
  for (const factory of PRIMARY_METHODS) {
    const method = factory(deps);
    if (method) methods.set(method.name, method);
  }
  return methods;
}

export type { PrimaryMethod, PrimaryMethodDeps, PrimaryOutcome } from './primary-method.js';
export { refuse } from './refusal.js';
