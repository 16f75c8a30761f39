/**
 * `GET /current-api-session/service-updates` (spec: Current API Session / Services; reference listServiceUpdates;
 * issue 15, item 5; docs/decisions/0032-client-services.md): when the caller's service list or anything it says last
 * changed. SDKs poll it and list their services again when it moves.
 */
import { Type } from 'typebox';
import { ApiErrorBody, DateTime, Envelope } from '../schemas/common.js';
import { envelope } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';
import { oncePerObject } from '../../shared/once-per-object.js';

/** The answer for a time, made once per kept time (the service updates keep the same Date until the list moves). */
const view = oncePerObject((changedAt: Date) => Object.freeze(envelope({ lastChangeAt: changedAt.toISOString() })));

export const serviceUpdatesRoute = defineRoute({
  method: 'GET',
  url: '/current-api-session/service-updates',
  operationId: 'listServiceUpdates',
  summary: "When the caller's service list, or anything it says, last changed: list the services again when this moves",
  tags: ['Current API Session', 'Services'],
  access: 'session',
  uses: ['authorization'],
  schema: { response: { 200: Envelope(Type.Object({ lastChangeAt: DateTime })), 401: ApiErrorBody } },
  fromMemory: ({ domains: { authorization }, auth }) => {
    const changedAt = authorization.serviceUpdates.lastChangeAtFromMemory(auth.identity);
    return changedAt && view(changedAt);
  },
  handler: async ({ domains: { authorization }, auth }) => view(await authorization.serviceUpdates.lastChangeAt(auth!.identity, auth!.session.createdAt)),
});
