/**
 * `GET /network-jwts` (reference `listNetworkJWTs`, both Edge APIs, no session): the network JWT, which names the
 * controller (`iss`) and is signed with an enrollment key, so a client can be given the network in one token.
 */
import { Type } from 'typebox';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { ApiErrorBody, Envelope } from '../schemas/common.js';

const NetworkJwt = Type.Object({ name: Type.String(), token: Type.String({ description: 'JWT: em = network, iss = sub = the controller address' }) });

export const networkJwtsRoute = defineRoute({
  method: 'GET',
  url: '/network-jwts',
  operationId: 'listNetworkJWTs',
  summary: 'Returns the network JWT, which tells a client where the controller is',
  tags: ['Informational'],
  access: 'none',
  uses: ['certificates'],
  schema: { response: { 200: Envelope(Type.Array(NetworkJwt)), 404: ApiErrorBody } },
  handler: async ({ domains }) => envelope(await domains.certificates.enrollmentKeys.networkJwts()),
});
