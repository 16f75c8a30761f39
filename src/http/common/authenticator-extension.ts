/**
 * Certificate authenticator extension (spec: Client certificate extension state table), on both Edge APIs as the
 * reference serves it: `POST /current-identity/authenticators/{id}/extend {clientCertCsr}` over TLS with the
 * authenticator's current certificate, then `POST .../extend-verify {clientCert}`. Management's
 * `POST /authenticators/{id}/request-extend {rollKeys}` asks the holder to extend.
 */
import { Type } from 'typebox';
import { actorOf } from '../kit/actor.js';
import { presentedClientCertificate } from '../kit/credentials.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { ApiErrorBody, EmptyEnvelope, Envelope, IdParams } from '../schemas/common.js';

const tags = ['Current API Session', 'Enroll', 'Extend Enrollment'];

const ExtendBody = Type.Object({ clientCertCsr: Type.String({ description: 'a PEM CERTIFICATE REQUEST (a new key may be used)' }) }, { additionalProperties: false });
const VerifyBody = Type.Object({ clientCert: Type.String({ description: 'the PEM certificate extend returned' }) }, { additionalProperties: false });
const ExtendCerts = Type.Object({
  ca: Type.String({ description: 'every CA the controller trusts (PEM)' }),
  clientCert: Type.String({ description: 'the new client certificate, then its CA chain (PEM); unverified until extend-verify' }),
});
const RequestExtendBody = Type.Object({ rollKeys: Type.Optional(Type.Boolean({ description: 'ask for a new key as well' })) }, { additionalProperties: false });

const errors = { 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody };

export const authenticatorExtensionRoutes = [
  defineRoute({
    method: 'POST',
    url: '/current-identity/authenticators/:id/extend',
    operationId: 'extendCurrentIdentityAuthenticator',
    summary: "Issues a new certificate for a certificate authenticator the controller issued; call over TLS with its current certificate",
    tags,
    access: 'session',
    uses: ['certificates'],
    schema: { params: IdParams, body: ExtendBody, response: { 200: Envelope(ExtendCerts), ...errors } },
    handler: async ({ domains, auth, params, body, request }) =>
      envelope(await domains.certificates.extension.extend(auth!.identity, params.id, body.clientCertCsr, presentedClientCertificate(request))),
  }),
  defineRoute({
    method: 'POST',
    url: '/current-identity/authenticators/:id/extend-verify',
    operationId: 'extendVerifyCurrentIdentityAuthenticator',
    summary: 'Confirms receipt of the extended certificate: it becomes the authenticator\'s, and the previous one is refused',
    tags,
    access: 'session',
    uses: ['certificates'],
    schema: { params: IdParams, body: VerifyBody, response: { 200: EmptyEnvelope, ...errors } },
    handler: async ({ domains, auth, params, body }) => {
      await domains.certificates.extension.verify(auth!.identity, params.id, body.clientCert);
      return envelope({});
    },
  }),
];

export const requestExtendRoute = defineRoute({
  method: 'POST',
  url: '/authenticators/:id/request-extend',
  operationId: 'requestExtendAuthenticator',
  summary: "Asks the holder of a controller-issued certificate authenticator to extend it (and roll its key) at its next login",
  tags: ['Authenticator'],
  access: 'admin',
  uses: ['certificates'],
  schema: { params: IdParams, body: RequestExtendBody, response: { 200: EmptyEnvelope, ...errors, 403: ApiErrorBody } },
  handler: async ({ domains, auth, params, body }) => {
    await domains.certificates.extension.requestExtend(actorOf(auth), params.id, body.rollKeys ?? false);
    return envelope({});
  },
});
