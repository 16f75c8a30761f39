/**
 * `GET /.well-known/est/cacerts` (RFC 7030 §4.1): the base64 certs-only PKCS#7 of the controller's own CAs (its
 * identity's CA bundle and the enrollment signing chain, as the reference serves), served without authentication so
 * a client can bootstrap trust before it enrolls. Clients store it as the CAs that may sign the controller's server
 * certificate, so third-party CAs, which are trusted only for client logins, are never in it (decision 0056).
 */
import { Type } from 'typebox';
import { defineRoute } from '../kit/route.js';

export const wellKnownCaCertsRoute = defineRoute({
  method: 'GET',
  url: '/.well-known/est/cacerts',
  operationId: 'listWellKnownCas',
  summary: 'Returns the CA certificate store (base64 PKCS#7) used to bootstrap trust during enrollment',
  tags: ['Well Known'],
  access: 'none',
  uses: ['caTrust'],
  produces: ['application/pkcs7-mime'],
  schema: { response: { 200: Type.String() } },
  handler: async ({ domains, reply }) => {
    const bundle = domains.caTrust.serverTrustPkcs7();
    reply.code(200).header('content-type', 'application/pkcs7-mime').header('content-transfer-encoding', 'base64').send(bundle);
    return undefined;
  },
});
