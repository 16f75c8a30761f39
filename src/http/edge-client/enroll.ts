/**
 * The enroll operations of the Edge Client API (no session: the one-time token is the credential):
 * `GET /enroll/jwks`, `POST /enroll?method=ott|updb|ottca|ca&token=`, `POST /enroll/ott?token=`, `POST /enroll/updb?token=`,
 * `POST /enroll/ottca` and `POST /enroll/ca` (a third-party CA's client certificate presented in the TLS handshake is
 * the credential, with the token for ottca; the answer is `{data: {}}`).
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
import { enrollRouter, erottBody } from './enroll-router.js';
import { JSON_TYPE, PEM_TYPE, preferredMediaType } from './media-types.js';
import { presentedClientChain } from '../kit/client-chain.js';

const tags = ['Enroll'];

const Token = Type.String({ format: 'uuid', description: 'the enrollment token (the JWT jti)' });
const TokenQuery = Type.Object({ token: Token });
const EnrollQuery = Type.Object({
  method: Type.Optional(Type.String({ description: `${[...ENROLL_METHODS, 'erott'].join(' or ')}; default ott` })),
  token: Type.Optional(Token),
});
const UpdbBody = Type.Object(
  { username: Type.Optional(Type.String({ description: 'must be the enrollment username when sent' })), password: Type.String() },
  { additionalProperties: false },
);

const CertsEnvelope = Envelope(Type.Object({ cert: Type.String({ description: 'the client certificate, then its CA chain (PEM)' }) }));
const UpdbEnvelope = Envelope(Type.Object({ username: Type.String() }));
const errors = { 400: ApiErrorBody, 404: ApiErrorBody, 406: ApiErrorBody, 409: ApiErrorBody, 410: ApiErrorBody };
const EmptyEnvelope = Envelope(Type.Object({}));
const OttcaBody = Type.Object({ token: Type.Optional(Token) }, { additionalProperties: false });
const CaBody = Type.Object({ name: Type.Optional(Type.String({ maxLength: 255, description: 'the [requestedName] of the CA identityNameFormat' })) }, { additionalProperties: false });

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

/** The token of an ottca request: the query's, else the JSON body's `token` (reference `/enroll/ottca {token}`). */
function ottcaToken(token: string | undefined, body: unknown): string {
  const fromBody = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).token : undefined;
  const value = token ?? fromBody;
  if (typeof value !== 'string') {
    throw new ApiError('COULD_NOT_VALIDATE', { message: 'The request is invalid: token is required (query token or JSON body {token})', cause: { field: 'token', reason: 'is required' } });
  }
  return value;
}

async function enrollOttca({ domains, request }: EnrollCall, token: string | undefined, body: unknown) {
  acceptedOrThrow(request, [JSON_TYPE]);
  await domains.enroll.enroll('ottca', ottcaToken(token, body), { clientChain: presentedClientChain(request) });
  return envelope({});
}

/** `POST /enroll/ca`: the optional JSON body `{name}` is the `[requestedName]` of the CA's name format. */
async function enrollCa({ domains, request }: EnrollCall, body: unknown) {
  acceptedOrThrow(request, [JSON_TYPE]);
  const fields = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (fields.name !== undefined && typeof fields.name !== 'string') {
    throw new ApiError('COULD_NOT_VALIDATE', { message: 'The request is invalid: body.name must be string', cause: { field: 'name', reason: 'must be string' } });
  }
  await domains.enroll.enroll('ca', '', { clientChain: presentedClientChain(request), ...(typeof fields.name === 'string' ? { requestedName: fields.name } : {}) });
  return envelope({});
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
const ENROLL_WIRE: { readonly [M in EnrollmentMethod]: (call: EnrollCall, token: string | undefined, body: unknown) => Promise<unknown> } = {
  ott: (call, token, body) => enrollOtt(call, requiredToken(token), body),
  updb: (call, token, body) => enrollUpdb(call, requiredToken(token), updbBody(body)),
  ottca: enrollOttca,
  ca: (call, _token, body) => enrollCa(call, body),
};

function requiredToken(token: string | undefined): string {
  if (token === undefined) {
    throw new ApiError('COULD_NOT_VALIDATE', { message: 'The request is invalid: query.token is required', cause: { field: 'token', reason: 'is required' } });
  }
  return token;
}

/** `POST /enroll?method=&token=`: the method is checked first, then the token, then the method's wire form answers. */
async function enrollWith(call: EnrollCall, method: string, token: string | undefined, body: unknown): Promise<unknown> {
  if (!isEnrollMethod(method)) {
    throw new ApiError('INVALID_ENROLL_METHOD', {
      message: `The enrollment method '${method}' is not supported; supported methods: ${[...ENROLL_METHODS, 'erott'].join(', ')}`,
      cause: { field: 'method', value: method },
    });
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
    uses: ['certificates'],
    schema: { response: { 200: JwkSet, 404: ApiErrorBody } },
    // Bare so that JOSE libraries (e.g. jose createRemoteJWKSet) read it as a JWKS document directly. Current and
    // retired keys while a JWT they signed is live (services/enrollment/enrollment-keys.ts).
    handler: async ({ domains, reply }) => {
      const jwks = await domains.certificates.enrollmentKeys.jwks();
      reply.type('application/jwk-set+json');
      return jwks;
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/enroll',
    // SDKs post their JSON content type with no body when they have nothing to send (the Go SDK's ca and ottca).
    emptyJsonBody: true,
    operationId: 'enroll',
    summary: 'Enrolls: method ott (token, PEM CSR body), updb (token, JSON {password}), ottca (token, TLS client certificate) or ca (TLS client certificate)',
    tags,
    access: 'none',
    uses: ['enroll', 'certificates'],
    produces: [PEM_TYPE],
    consumes: [PEM_TYPE, 'application/pkcs10', 'text/plain'],
    schema: {
      querystring: EnrollQuery,
      response: {
        200: Envelope(
          Type.Object({
            cert: Type.Optional(Type.String()),
            username: Type.Optional(Type.String()),
            // method erott (an edge router): enroll-router.ts
            ca: Type.Optional(Type.String()),
            serverCert: Type.Optional(Type.String()),
          }),
        ),
        ...errors,
      },
    },
    handler: ({ domains, query, request, reply }) =>
      query.method === 'erott' ? enrollRouter(domains, query.token, erottBody(request.body)) : enrollWith({ domains, request, reply }, query.method ?? 'ott', query.token, request.body),
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
  defineRoute({
    method: 'POST',
    url: '/enroll/ottca',
    emptyJsonBody: true,
    operationId: 'enrollOttCa',
    summary: "Enrolls with a one-time token (query or JSON {token}) and the TLS client certificate the enrollment's third-party CA issued; no CSR",
    tags,
    access: 'none',
    uses: ['enroll'],
    schema: { querystring: Type.Object({ token: Type.Optional(Token) }), body: Type.Optional(OttcaBody), response: { 200: EmptyEnvelope, ...errors } },
    handler: ({ domains, query, body, request, reply }) => enrollOttca({ domains, request, reply }, query.token, body),
  }),
  defineRoute({
    method: 'POST',
    url: '/enroll/ca',
    emptyJsonBody: true,
    operationId: 'enrollCa',
    summary: 'Creates and enrolls an identity from the TLS client certificate of a verified third-party CA that allows auto-enrollment',
    tags,
    access: 'none',
    uses: ['enroll'],
    schema: { body: Type.Optional(CaBody), response: { 200: EmptyEnvelope, ...errors } },
    handler: ({ domains, body, request, reply }) => enrollCa({ domains, request, reply }, body),
  }),
];
