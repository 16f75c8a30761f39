/**
 * The registry of enrollment methods: one line per method. A new method is a new file in this folder implementing
 * EnrollMethod (enroll-method.ts) plus its line below (and its name in domain/enrollment.ts, which the stored
 * enrollments use too); its input and result types follow from the file.
 */
import type { EnrollmentMethod } from '../../../domain/enrollment.js';
import type { EnrollMethod } from './enroll-method.js';
import { ottEnrollment } from './ott.js';
import { updbEnrollment } from './updb.js';
import { ottcaEnrollment } from './ottca.js';
import { caEnrollment } from './ca.js';

const ENROLL_METHOD_REGISTRY = {
  ott: ottEnrollment, //   a CSR for a client certificate
  updb: updbEnrollment, // a password for the chosen username
  ottca: ottcaEnrollment, // a third-party CA's client certificate, by token
  ca: caEnrollment, //     a third-party CA's client certificate alone: the identity is created (no token)
} as const satisfies { readonly [M in EnrollmentMethod]: EnrollMethod<never, { identityId: string }> };

type Registry = typeof ENROLL_METHOD_REGISTRY;

/** What `method` takes besides its token. */
export type EnrollInput<M extends EnrollmentMethod> = Parameters<Registry[M]['enroll']>[2];
/** What `method` answers. */
export type EnrollResult<M extends EnrollmentMethod> = Awaited<ReturnType<Registry[M]['enroll']>>;

/** The methods `POST /enroll?method=` accepts, in registry order. */
export const ENROLL_METHODS = Object.keys(ENROLL_METHOD_REGISTRY) as readonly EnrollmentMethod[];

/** Whether `name` is a registered enrollment method (own keys only: `constructor` is not a method). */
export function isEnrollMethod(name: string): name is EnrollmentMethod {
  return Object.hasOwn(ENROLL_METHOD_REGISTRY, name);
}

/** The module of a registered method. */
export function enrollMethod<M extends EnrollmentMethod>(name: M): EnrollMethod<EnrollInput<M>, EnrollResult<M>> {
  // The registry's `satisfies` ties each name to its module; TypeScript cannot follow the correlation by itself.
  return ENROLL_METHOD_REGISTRY[name] as unknown as EnrollMethod<EnrollInput<M>, EnrollResult<M>>;
}

export type { EnrollCas, EnrollContext, EnrollMethod, PendingEnrollment } from './enroll-method.js';
