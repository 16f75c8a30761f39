/**
 * The bad-input corpus of one operation: every class of bad request that applies to it, generated from its
 * description (method, parameters, body schema) and a seeded PRNG. Builders return values and never assert.
 */
import { fieldCases, parseCases, providerParameterCases } from './body-cases.js';
import { takesBody, type BadCase, type CaseContext } from './case.js';
import { headerCases, pathIdCases, providerQueryCases, queryCases } from './request-cases.js';

export type { BadCase, CaseContext, CaseLimits, TokenName } from './case.js';

/** Every case for `context.op`; the same seed gives the same cases. */
export function casesFor(context: CaseContext): BadCase[] {
  const { op } = context;
  const cases = [...headerCases(context), ...pathIdCases(context)];
  if (takesBody(op.method)) cases.push(...parseCases(context));
  if (op.api === 'oidc') {
    if (takesBody(op.method)) cases.push(...providerParameterCases(context));
    if (op.readsQuery) cases.push(...providerQueryCases(context));
  } else {
    cases.push(...fieldCases(context), ...queryCases(context));
  }
  return cases;
}

/** A seed for one operation from the run's seed: adding a route does not change the cases of the others. */
export function operationSeed(seed: number, operationId: string): number {
  let hash = seed >>> 0;
  for (let i = 0; i < operationId.length; i++) hash = Math.imul(hash ^ operationId.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}
