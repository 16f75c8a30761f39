/**
 * The body of a login POST (`/oidc/login/password|username|cert|ext-jwt`). SDKs send JSON with `sdkInfo` and
 * `envInfo` as objects and `configTypes` as an array beside `authRequestId` (or `id`) and the credential fields;
 * a browser's form sends strings only. The three structured fields follow the legacy `authenticate` body's rules
 * (http/schemas/client-info.ts, checked by the same validator library); every other field must be one string, as
 * for every OAuth parameter (RFC 6749 §3.1). A refusal is 400 invalid_request naming the field.
 */
import { Ajv, type ErrorObject } from 'ajv';
import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { clientInfoFields } from '../http/schemas/client-info.js';
import { OAuthError } from '../errors/oauth-error.js';
import { MAX_TOKEN_PARAM, readParams } from './params.js';

const Param = Type.String({ maxLength: MAX_TOKEN_PARAM });

const LoginBodySchema = Type.Object(
  {
    authRequestId: Type.Optional(Param),
    id: Type.Optional(Param),
    username: Type.Optional(Param),
    password: Type.Optional(Param),
    ...clientInfoFields,
  },
  // Other fields are tolerated as before, as single strings (a field repeated in a form arrives as an array).
  { additionalProperties: Param },
);

// Options as the Edge APIs' validator has them: no coercion, nothing removed, the first problem reported. Compiled at
// the first login rather than at import, which every process loading the controller would pay.
let compiled: ReturnType<Ajv['compile']> | undefined;
const validator = () => (compiled ??= new Ajv({ allErrors: false, coerceTypes: false, removeAdditional: false }).compile(LoginBodySchema));

export interface LoginBody {
  /** The auth request id: `authRequestId` (or `id`) in the body, else `authRequestID` (or `id`) in the query. */
  id: string | undefined;
  username: string | undefined;
  password: string | undefined;
  sdkInfo: Static<typeof LoginBodySchema>['sdkInfo'];
  envInfo: Static<typeof LoginBodySchema>['envInfo'];
  configTypes: string[] | undefined;
}

/** `sdkInfo.appId must NOT have more than 255 characters`: where the problem is, then what it is. */
function describe(error: ErrorObject): string {
  const segments = error.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  // A refused property name is reported on its object; the name itself rides on the error (or its params).
  const name = error.propertyName ?? (typeof error.params.propertyName === 'string' ? error.params.propertyName : undefined);
  if (name !== undefined) return `${[...segments, name].join('.')} is not an accepted name (a letter, then up to 63 letters, digits, _ . -)`;
  return `${segments.join('.') || 'the body'} ${error.message ?? 'is invalid'}`;
}

function isForm(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/** Reads and checks the body and the query of a login POST; OAuthError invalid_request on anything malformed. */
export function readLoginBody(request: FastifyRequest): LoginBody {
  const query = readParams(request.query, MAX_TOKEN_PARAM);
  let body: unknown = request.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new OAuthError('invalid_request', 'the body must be a JSON object or a form');
  // A form has no arrays: its `configTypes` is given once per value (the reference's form), and once means one.
  const formTypes = isForm(request) ? (body as Record<string, unknown>).configTypes : undefined;
  if (typeof formTypes === 'string') body = { ...body, configTypes: [formTypes] };
  const validate = validator();
  if (!validate(body)) throw new OAuthError('invalid_request', describe((validate.errors ?? [])[0] as ErrorObject));
  const checked = body as Static<typeof LoginBodySchema>;
  return {
    id: checked.authRequestId ?? checked.id ?? query.authRequestID ?? query.id,
    username: checked.username,
    password: checked.password,
    sdkInfo: checked.sdkInfo,
    envInfo: checked.envInfo,
    configTypes: checked.configTypes,
  };
}
