/**
 * Edge router enrollment operations of the Edge Client API (reference facts §9; decision 0038):
 * `POST /enroll/erott?token=` with JSON `{certCsr, serverCertCsr}` (the reference's `{clientCsr, serverCsr, token}`
 * body of this path is read too: upstream's handler of it is broken, routers post to `/enroll?method=erott`, which
 * enroll.ts sends here), and `POST /enroll/extend/router` over TLS with the router's current client certificate.
 */
import { Type } from 'typebox';
import { ApiError } from '../../errors/api-error.js';
import type { Services } from '../../services/services.js';
import { presentedClientCertificate } from '../kit/credentials.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { ApiErrorBody, Envelope } from '../schemas/common.js';

const tags = ['Enroll'];
const Csr = Type.String({ description: 'a PEM CERTIFICATE REQUEST' });

const ErottBody = Type.Object(
  {
    certCsr: Type.Optional({ ...Csr, description: 'the client certificate CSR; its common name must be the edge router id' }),
    serverCertCsr: Type.Optional({ ...Csr, description: 'the server certificate CSR; its DNS and IP subjectAltNames become the certificate\'s' }),
    clientCsr: Type.Optional({ ...Csr, description: 'the reference specification\'s name of certCsr' }),
    serverCsr: Type.Optional({ ...Csr, description: 'the reference specification\'s name of serverCertCsr' }),
    token: Type.Optional(Type.String({ format: 'uuid', description: 'the enrollment token, when not in the query' })),
  },
  { additionalProperties: false },
);
const ExtendBody = Type.Object({ certCsr: Csr, serverCertCsr: Csr }, { additionalProperties: false });
const TokenQuery = Type.Object({ token: Type.Optional(Type.String({ format: 'uuid', description: 'the enrollment token (the JWT jti)' })) });

const RouterCerts = Type.Object({
  ca: Type.String({ description: 'every CA the controller trusts (PEM)' }),
  cert: Type.String({ description: 'the client certificate, then its CA chain (PEM)' }),
  serverCert: Type.String({ description: 'the server certificate, then its CA chain (PEM)' }),
});
const ExtendedCerts = Type.Object({ cert: RouterCerts.properties.cert, serverCert: RouterCerts.properties.serverCert });

type ErottInput = { certCsr?: string; serverCertCsr?: string; clientCsr?: string; serverCsr?: string; token?: string };

function required(field: string, reason: string): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason } });
}

/** The `erott` body, as `POST /enroll?method=erott` receives it unchecked (a JSON object of strings). */
export function erottBody(body: unknown): ErottInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw required('certCsr', 'is required (send a JSON object {certCsr, serverCertCsr})');
  const fields = body as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (!Object.hasOwn(ErottBody.properties, key)) throw required(key, 'is not a known field');
    if (typeof value !== 'string') throw required(key, 'must be string');
  }
  return fields as ErottInput;
}

/** Enrolls with `token` (query) or the body's; answers `{ca, cert, serverCert}`. */
export async function enrollRouter(domains: Pick<Services, 'certificates'>, queryToken: string | undefined, input: ErottInput) {
  const token = queryToken ?? input.token;
  if (token === undefined) throw required('token', 'is required');
  const certificates = await domains.certificates.routers.enroll(token, {
    ...((input.certCsr ?? input.clientCsr) !== undefined ? { certCsr: input.certCsr ?? input.clientCsr } : {}),
    ...((input.serverCertCsr ?? input.serverCsr) !== undefined ? { serverCertCsr: input.serverCertCsr ?? input.serverCsr } : {}),
  });
  return envelope(certificates);
}

const errors = { 400: ApiErrorBody, 404: ApiErrorBody, 410: ApiErrorBody };

export const enrollRouterRoutes = [
  defineRoute({
    method: 'POST',
    url: '/enroll/erott',
    operationId: 'enrollErOtt',
    summary: "Enrolls an edge router with its one-time token and two CSRs; returns its client and server certificates and the CAs",
    tags,
    access: 'none',
    uses: ['certificates'],
    schema: { querystring: TokenQuery, body: ErottBody, response: { 200: Envelope(RouterCerts), ...errors } },
    handler: ({ domains, query, body }) => enrollRouter(domains, query.token, body),
  }),
  defineRoute({
    method: 'POST',
    url: '/enroll/extend/router',
    operationId: 'extendRouterEnrollment',
    summary: "Issues an edge router new certificates; must be called over TLS with its current client certificate, which is then refused",
    tags,
    access: 'none',
    uses: ['certificates'],
    schema: { body: ExtendBody, response: { 200: Envelope(ExtendedCerts), 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody } },
    handler: async ({ domains, body, request }) => envelope(await domains.certificates.routers.extend(presentedClientCertificate(request), body)),
  }),
];
