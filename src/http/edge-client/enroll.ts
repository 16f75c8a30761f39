/**
 * The enroll operations of the Edge Client API (no session: the one-time token is the credential):
 * `GET /enroll/jwks`, `POST /enroll?method=ott|updb&token=`, `POST /enroll/ott?token=`, `POST /enroll/updb?token=`.
 * An `ott` body is the PEM CSR itself (Content-Type application/x-pem-file, application/pkcs10 or text/plain);
 * the answer is JSON `{data: {cert}}`, or the bare PEM chain when Accept prefers application/x-pem-file.
 * The methods themselves live in services/enrollment/methods/; what is here is each method's wire form
 * (ENROLL_WIRE: body and media types), looked up by name like the methods (decision 0018).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EnrollmentMethod } from '../../domain/enrollment.js';
import { Type } from 'typebox';
import { ApiError } from '../../errors/api-error.js';
import { ENROLL_METHODS, isEnrollMethod } from '../../services/enrollment/enroll.js';
import { ApiErrorBody, Envelope } from '../schemas/common.js';
import { envelope } from '../kit/envelope.js';
import type { Services } from '../../services/services.js';
import { defineRoute } from '../kit/route.js';
import { JSON_TYPE, PEM_TYPE, preferredMediaType } from './media-types.js';

const tags = ['Enroll'];

const Token = Type.String({ format: 'uuid', description: 'the enrollment token (the JWT jti)' });
const TokenQuery = Type.Object({ token: Token });
const EnrollQuery = Type.Object({
  method: Type.Optional(Type.String({ description: `${ENROLL_METHODS.join(' or ')}; default ott` })),
  token: Type.Optional(Token),
});
const UpdbBody = Type.Object(
  { username: Type.Optional(Type.String({ description: 'must be the enrollment username when sent' })), password: Type.String() },
  { additionalProperties: false },
);

const CertsEnvelope = Envelope(Type.Object({ cert: Type.String({ description: 'the client certificate, then its CA chain (PEM)' }) }));
const UpdbEnvelope = Envelope(Type.Object({ username: Type.String() }));
const errors = { 400: ApiErrorBody, 404: ApiErrorBody, 406: ApiErrorBody, 410: ApiErrorBody };

/** RFC 7517 section 5: a JWK Set is an object whose `keys` member is an array of JWKs. */
const JwkSet = Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) });

function acceptedOrThrow(request: FastifyRequest, offered: string[]): string {
  const media = preferredMediaType(request.headers.accept, offered);
  if (!media) throw new ApiError('NOT_ACCEPTABLE', { message: `The Accept header allows none of ${offered.join(', ')}` });
  return media;
}

/** What the enroll handlers of every method are given. */
interface EnrollCall {
  domains: Pick<Services, 'enroll'>;
  request: FastifyRequest;
  reply: FastifyReply;
}

async function enrollOtt({ domains, request, reply }: EnrollCall, token: string, body: unknown) {
  // Negotiated first, so a request whose answer could not be read changes nothing.
  const media = acceptedOrThrow(request, [JSON_TYPE, PEM_TYPE]);
  const { certChainPem } = await domains.enroll.enroll('ott', token, { csrPem: typeof body === 'string' ? body : undefined });
  if (media === PEM_TYPE) {
    reply.code(200).type(PEM_TYPE).send(certChainPem);
    return undefined;
  }
  return envelope({ cert: certChainPem });
}

async function enrollUpdb({ domains, request }: EnrollCall, token: string, body: { username?: string; password: string }) {
  acceptedOrThrow(request, [JSON_TYPE]);
  const { username } = await domains.enroll.enroll('updb', token, { username: body.username, password: body.password });
  return envelope({ username });
}

/** The `{username?, password}` body of `POST /enroll?method=updb`, checked as the UpdbBody schema would. */
function updbBody(body: unknown): { username?: string; password: string } {
  const invalid = (field: string, reason: string) => new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: body.${field} ${reason}`, cause: { field, reason } });
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('password', 'is required (send a JSON object {password, username?})');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => key !== 'username' && key !== 'password');
  if (unknown !== undefined) throw invalid(unknown, 'is not a known field');
  if (typeof fields.password !== 'string') throw invalid('password', fields.password === undefined ? 'is required' : 'must be string');
  if (fields.username !== undefined && typeof fields.username !== 'string') throw invalid('username', 'must be string');
  return { password: fields.password, ...(fields.username === undefined ? {} : { username: fields.username as string }) };
}

/**
 * The wire form of each enrollment method for `POST /enroll?method=`, whose body is whatever the method reads:
 * one entry per registered method (the type makes a missing one a compile error).
 */
const ENROLL_WIRE: { readonly [M in EnrollmentMethod]: (call: EnrollCall, token: string, body: unknown) => Promise<unknown> } = {
  ott: enrollOtt,
  updb: (call, token, body) => enrollUpdb(call, token, updbBody(body)),
};

/** `POST /enroll?method=&token=`: the method is checked first, then the token, then the method's wire form answers. */
async function enrollWith(call: EnrollCall, method: string, token: string | undefined, body: unknown): Promise<unknown> {
  if (!isEnrollMethod(method)) {
    throw new ApiError('INVALID_ENROLL_METHOD', {
      message: `The enrollment method '${method}' is not supported; supported methods: ${ENROLL_METHODS.join(', ')}`,
      cause: { field: 'method', value: method },
    });
  }
  if (token === undefined) {
    throw new ApiError('COULD_NOT_VALIDATE', { message: 'The request is invalid: query.token is required', cause: { field: 'token', reason: 'is required' } });
  }
  return ENROLL_WIRE[method](call, token, body);
}

export const enrollRoutes = [
  defineRoute({
    method: 'GET',
    url: '/enroll/jwks',
    operationId: 'getEnrollmentJwks',
    summary: 'Returns the JSON Web Key Set (RFC 7517) that verifies enrollment JWTs; bare, without the envelope',
    tags,
    access: 'none',
    uses: ['enroll'],
    schema: { response: { 200: JwkSet, 404: ApiErrorBody } },
    // Bare so that JOSE libraries (e.g. jose createRemoteJWKSet) read it as a JWKS document directly.
    handler: ({ domains, reply }) => {
      reply.type('application/jwk-set+json');
      return domains.enroll.jwks();
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/enroll',
    operationId: 'enroll',
    summary: 'Enrolls with a one-time token: method ott (PEM CSR body) or updb (JSON {password})',
    tags,
    access: 'none',
    uses: ['enroll'],
    produces: [PEM_TYPE],
    consumes: [PEM_TYPE, 'application/pkcs10', 'text/plain'],
    schema: { querystring: EnrollQuery, response: { 200: Envelope(Type.Object({ cert: Type.Optional(Type.String()), username: Type.Optional(Type.String()) })), ...errors } },
    handler: ({ domains, query, request, reply }) => enrollWith({ domains, request, reply }, query.method ?? 'ott', query.token, request.body),
  }),
  defineRoute({
    method: 'POST',
    url: '/enroll/ott',
    operationId: 'enrollOtt',
    summary: 'Enrolls with a one-time token and a PEM CSR body; returns the client certificate chain',
    tags,
    access: 'none',
    uses: ['enroll'],
    produces: [PEM_TYPE],
    consumes: [PEM_TYPE, 'application/pkcs10', 'text/plain'],
    schema: { querystring: TokenQuery, response: { 200: CertsEnvelope, ...errors } },
    handler: ({ domains, query, request, reply }) => enrollOtt({ domains, request, reply }, query.token, request.body),
  }),
  defineRoute({
    method: 'POST',
    url: '/enroll/updb',
    operationId: 'enrollUpdb',
    summary: 'Enrolls with a one-time token by setting the password of the enrollment username',
    tags,
    access: 'none',
    uses: ['enroll'],
    schema: { querystring: TokenQuery, body: UpdbBody, response: { 200: UpdbEnvelope, ...errors } },
    handler: ({ domains, query, body, request, reply }) => enrollUpdb({ domains, request, reply }, query.token, body),
  }),
];
