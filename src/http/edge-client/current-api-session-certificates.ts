/**
 * Ephemeral certificates of the current API session (spec: Current API Session; reference
 * `currentApiSessionCertificate*`): create from a CSR, list, read, delete. Only the session's own certificates are
 * visible; another session's is 404 (services/certificates/session-certificates.ts).
 */
import { Type } from 'typebox';
import type { SessionCertificate } from '../../services/certificates/session-certificates.js';
import { envelope, listEnvelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { ApiErrorBody, DateTime, EmptyEnvelope, Envelope, IdParams, Links, ListEnvelope, ListQueryParams } from '../schemas/common.js';

const tags = ['Current API Session'];
const COLLECTION = 'current-api-session/certificates';

const CreateBody = Type.Object({ csr: Type.String({ description: 'a PEM CERTIFICATE REQUEST; the client keeps the private key' }) }, { additionalProperties: false });

const Created = Type.Object({
  id: Type.String(),
  _links: Links,
  certificate: Type.String({ description: 'the client certificate, then its CA chain (PEM)' }),
  cas: Type.String({ description: 'every CA the controller trusts (PEM)' }),
});

const Detail = Type.Object({
  id: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
  tags: Type.Object({}),
  _links: Links,
  certificate: Type.String(),
  fingerprint: Type.String({ description: 'lowercase hex SHA-1 of the DER' }),
  subject: Type.String(),
  validFrom: DateTime,
  validTo: DateTime,
});

const links = (id: string) => ({ self: { href: `./${COLLECTION}/${id}` } });

function detailView(certificate: SessionCertificate) {
  return {
    id: certificate.id,
    createdAt: certificate.createdAt.toISOString(),
    updatedAt: certificate.createdAt.toISOString(),
    tags: {},
    _links: links(certificate.id),
    certificate: certificate.certPem,
    fingerprint: certificate.fingerprint,
    subject: certificate.subject,
    validFrom: certificate.validFrom.toISOString(),
    validTo: certificate.validTo.toISOString(),
  };
}

const denied = { 401: ApiErrorBody };

export const currentApiSessionCertificateRoutes = [
  defineRoute({
    method: 'GET',
    url: '/current-api-session/certificates',
    operationId: 'listCurrentApiSessionCertificates',
    summary: 'Lists the ephemeral certificates of this API session',
    tags,
    access: 'session',
    uses: ['certificates'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(Detail), 400: ApiErrorBody, ...denied } },
    handler: async ({ domains, auth, query }) => {
      const page = await domains.certificates.sessionCertificates.list(auth!, query);
      return listEnvelope(page.items.map(detailView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/current-api-session/certificates',
    operationId: 'createCurrentApiSessionCertificate',
    summary: 'Issues a short-lived client certificate for the CSR key, valid only while this API session lives',
    tags,
    access: 'session',
    uses: ['certificates'],
    status: 201,
    schema: { body: CreateBody, response: { 201: Envelope(Created), 400: ApiErrorBody, ...denied, 404: ApiErrorBody, 409: ApiErrorBody } },
    handler: async ({ domains, auth, body }) => {
      const created = await domains.certificates.sessionCertificates.create(auth!, body.csr);
      return envelope({ ...created, _links: links(created.id) });
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/current-api-session/certificates/:id',
    operationId: 'detailCurrentApiSessionCertificate',
    summary: 'Reads one ephemeral certificate of this API session',
    tags,
    access: 'session',
    uses: ['certificates'],
    schema: { params: IdParams, response: { 200: Envelope(Detail), ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => envelope(detailView(await domains.certificates.sessionCertificates.get(auth!, params.id))),
  }),
  defineRoute({
    method: 'DELETE',
    url: '/current-api-session/certificates/:id',
    operationId: 'deleteCurrentApiSessionCertificate',
    summary: 'Deletes an ephemeral certificate of this API session; it is refused from then on',
    tags,
    access: 'session',
    uses: ['certificates'],
    schema: { params: IdParams, response: { 200: EmptyEnvelope, ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, auth, params }) => {
      await domains.certificates.sessionCertificates.delete(auth!, params.id);
      return envelope({});
    },
  }),
];
