/**
 * What the controller does with each message a connected router sends on its control channel (docs/control-protocol.md
 * "Router to controller"): requests are answered with a Result, notices are applied without one. Every message is
 * read against its schema first; a malformed or misplaced one is refused by name and logged, and the channel stays
 * up (one bad request is not a reason to drop a router's SDKs). The limit on requests in flight keeps one router from
 * queueing unbounded work at the store.
 */
import type { Logger } from 'pino';
import type { Channel, Message } from '../channel/index.js';
import { ControlErrorCode, ControlType, controlTypeName } from '../control-protocol/catalogue.js';
import {
  ApiSessionActivitySchema,
  ApiSessionCheckSchema,
  CircuitsEndedSchema,
  ControlBodyError,
  CreateTerminatorSchema,
  DeleteTerminatorsSchema,
  DialRequestSchema,
  ReconcileTerminatorsSchema,
  EmptySchema,
  HostedServicesSchema,
  IdentityConnectionsSchema,
  LinkReportSchema,
  readBody,
  ReconcileCircuitsSchema,
  RouterEventsSchema,
  RouterMetricsSchema,
  UpdateTerminatorSchema,
} from '../control-protocol/bodies.js';
import { refusal, success } from '../control-protocol/results.js';
import { RouterRequestError, type RouterControlService, type RouterStanding } from '../services/routers/router-control.js';
import type { ControlPlaneMetrics } from './metrics.js';

/** Requests one router may have in flight; more are refused with UNAVAILABLE until some are answered. */
export const MAX_REQUESTS_IN_FLIGHT = 64;

/** Content types only the controller sends: a router sending one is out of order. */
const CONTROLLER_ONLY = new Set<number>([ControlType.TrustState, ControlType.Revocations, ControlType.Endpoints, ControlType.Peers]);

export function handleRouterMessages(deps: {
  channel: Channel;
  router: () => RouterStanding;
  service: RouterControlService;
  metrics: ControlPlaneMetrics;
  log: Logger;
}): void {
  const { channel, service, metrics, log } = deps;
  let inFlight = 0;

  const refuse = (message: Message, code: ControlErrorCode, sentence: string) => {
    log.warn({ router: deps.router().name, type: controlTypeName(message.contentType), code }, `a control message was refused: ${sentence}`);
    channel.reply(message, refusal(code, sentence));
  };

  async function answer(message: Message, work: () => Promise<unknown>): Promise<void> {
    if (inFlight >= MAX_REQUESTS_IN_FLIGHT) {
      refuse(message, ControlErrorCode.Unavailable, `more than ${MAX_REQUESTS_IN_FLIGHT} requests are in flight; retry after an answer`);
      return;
    }
    inFlight++;
    try {
      const body = await work();
      if (!channel.closed) channel.reply(message, success(body ?? {}));
    } catch (error) {
      if (channel.closed) return;
      if (error instanceof ControlBodyError) refuse(message, ControlErrorCode.BadMessage, error.message);
      else if (error instanceof RouterRequestError) refuse(message, error.code, error.message);
      else {
        log.warn({ err: error, router: deps.router().name, type: controlTypeName(message.contentType) }, 'a router request failed');
        channel.reply(message, refusal(ControlErrorCode.Unavailable, 'the controller could not answer now; retry'));
      }
    } finally {
      inFlight--;
    }
  }

  const notice = (message: Message, apply: () => void) => {
    try {
      apply();
    } catch (error) {
      if (error instanceof ControlBodyError) refuse(message, ControlErrorCode.BadMessage, error.message);
      else throw error;
    }
  };

  // Notices that write the store are applied one after another, in the order sent: a LinkReport is whole, so an
  // older one written after a newer one would bring back links that are gone.
  let writes = Promise.resolve();
  // `read` reads the body (a malformed one is refused by field at once) and answers the write to queue.
  const storedNotice = (message: Message, what: string, read: () => () => Promise<unknown>) =>
    notice(message, () => {
      const write = read();
      writes = writes.then(write).then(
        () => undefined,
        (error: unknown) => log.warn({ err: error, router: deps.router().name }, `the router's ${what} could not be stored`),
      );
    });

  channel.onMessage((message) => {
    const type = message.contentType;
    metrics.controlMessage('in', controlTypeName(type));
    const router = deps.router();
    switch (type) {
      case ControlType.Ping:
        void answer(message, async () => readBody(EmptySchema, message.body, 'Ping'));
        return;
      case ControlType.CreateTerminator:
        void answer(message, () => service.createTerminator(router, readBody(CreateTerminatorSchema, message.body, 'CreateTerminator')));
        return;
      case ControlType.UpdateTerminator:
        void answer(message, () => service.updateTerminator(router, readBody(UpdateTerminatorSchema, message.body, 'UpdateTerminator')));
        return;
      case ControlType.DeleteTerminators:
        void answer(message, async () => {
          await service.deleteTerminators(router, readBody(DeleteTerminatorsSchema, message.body, 'DeleteTerminators').ids);
          return {};
        });
        return;
      case ControlType.ReconcileTerminators:
        void answer(message, async () => ({
          removed: await service.reconcileTerminators(router, readBody(ReconcileTerminatorsSchema, message.body, 'ReconcileTerminators').keep),
        }));
        return;
      case ControlType.DialRequest:
        void answer(message, () => service.dial(router, readBody(DialRequestSchema, message.body, 'DialRequest')));
        return;
      case ControlType.ApiSessionCheck:
        // The body may hold a legacy token: no log line here quotes it (refusals name fields, never values).
        void answer(message, () => service.checkApiSession(readBody(ApiSessionCheckSchema, message.body, 'ApiSessionCheck')));
        return;
      case ControlType.ApiSessionActivity:
        notice(message, () => service.recordActivity(readBody(ApiSessionActivitySchema, message.body, 'ApiSessionActivity').apiSessionIds));
        return;
      case ControlType.IdentityConnections:
        notice(message, () => {
          const report = readBody(IdentityConnectionsSchema, message.body, 'IdentityConnections');
          const gone = new Set(report.disconnected);
          const both = report.connected.findIndex((id) => gone.has(id));
          if (both >= 0) throw new ControlBodyError(`IdentityConnections: body.connected.${both} is also in body.disconnected; an id is in one list only`);
          const dropped = service.reportIdentities(router, report);
          if (dropped > 0) log.warn({ router: router.name, dropped }, `router ${router.name} reported more identities than a router may hold; ${dropped} were not kept`);
        });
        return;
      case ControlType.RouterEvents:
        notice(message, () => {
          for (const event of readBody(RouterEventsSchema, message.body, 'RouterEvents').events) {
            log.info({ router: router.name, event: event.type, at: new Date(event.at).toISOString() }, `router ${router.name}: ${event.detail}`);
          }
        });
        return;
      case ControlType.LinkReport:
        storedNotice(message, 'link report', () => {
          const report = readBody(LinkReportSchema, message.body, 'LinkReport');
          return () => service.reportLinks(router, report);
        });
        return;
      case ControlType.CircuitsEnded:
        storedNotice(message, 'ended circuits', () => {
          const ended = readBody(CircuitsEndedSchema, message.body, 'CircuitsEnded');
          return () => service.circuitsEnded(router, ended);
        });
        return;
      case ControlType.ReconcileCircuits:
        void answer(message, async () => ({
          removed: await service.reconcileCircuits(router, readBody(ReconcileCircuitsSchema, message.body, 'ReconcileCircuits').keep),
        }));
        return;
      case ControlType.HostedServices:
        void answer(message, () => service.hostedServices(router, readBody(HostedServicesSchema, message.body, 'HostedServices')));
        return;
      case ControlType.RouterMetrics:
        notice(message, () => metrics.routerReport(router.id, readBody(RouterMetricsSchema, message.body, 'RouterMetrics').values));
        return;
      default:
        if (type === 0) refuse(message, ControlErrorCode.BadMessage, 'Hello was already exchanged on this channel');
        else if (CONTROLLER_ONLY.has(type)) refuse(message, ControlErrorCode.BadMessage, `${controlTypeName(type)} is sent by the controller, not by a router`);
        else refuse(message, ControlErrorCode.BadMessage, `content type ${type} is not part of the svc control protocol`);
    }
  });
}

