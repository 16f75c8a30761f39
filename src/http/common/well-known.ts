/**
 * `GET /.well-known/est/cacerts` (RFC 7030 §4.1): the base64 certs-only PKCS#7 of every CA the controller
 * trusts, its own and the verified third-party CAs (decision 0037), served without authentication so a client can
 * bootstrap trust before it enrolls.
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
    const bundle = await domains.caTrust.bundlePkcs7();
    reply.code(200).header('content-type', 'application/pkcs7-mime').header('content-transfer-encoding', 'base64').send(bundle);
    return undefined;
  },
});
