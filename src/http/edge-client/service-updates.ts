/**
 * `GET /current-api-session/service-updates` (spec: Current API Session / Services; reference listServiceUpdates;
 * issue 15, item 5; docs/decisions/0032-client-services.md): when the caller's service list or anything it says last
 * changed. SDKs poll it and list their services again when it moves.
 */
import { Type } from 'typebox';
import { ApiErrorBody, DateTime, Envelope } from '../schemas/common.js';
import { envelope } from '../kit/envelope.js';
import { answerFrom, defineRoute } from '../kit/route.js';

export const serviceUpdatesRoute = defineRoute({
  method: 'GET',
  url: '/current-api-session/service-updates',
  operationId: 'listServiceUpdates',
  summary: "When the caller's service list, or anything it says, last changed: list the services again when this moves",
  tags: ['Current API Session', 'Services'],
  access: 'session',
  uses: ['authorization'],
  schema: { response: { 200: Envelope(Type.Object({ lastChangeAt: DateTime })), 401: ApiErrorBody } },
  handler: ({ domains: { authorization }, auth }) =>
    answerFrom(
      authorization.serviceUpdates.lastChangeAtFromMemory(auth!.identity),
      () => authorization.serviceUpdates.lastChangeAt(auth!.identity, auth!.session.createdAt),
      (changedAt) => envelope({ lastChangeAt: changedAt.toISOString() }),
    ),
});
