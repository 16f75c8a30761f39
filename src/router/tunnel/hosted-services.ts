/**
 * The services this router's tunnel hosts (issue 43, decision 0071): the controller says which services the router's
 * own identity may Bind and their host configs (HostedServices, paged); the router keeps one `tunnel` terminator per
 * hosting definition (host.v2 may list several), created with that identity as `hostId` so the controller checks
 * Bind access and revokes the terminator when access goes, exactly as for an SDK binding. It asks again after each
 * control connect, after an access change (debounced), after one of its terminators is revoked, and every
 * REFRESH_MS; a revoked terminator comes back only if the next answer still lists its service. The egress
 * (host-egress.ts) finds a circuit's target here by terminator id.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  EmptySchema,
  HostedServicesAnswerSchema,
  TerminatorAnswerSchema,
  type HostedService,
  type Revocation,
} from '../../control-protocol/bodies.js';
import { ControlErrorCode, ControlType } from '../../control-protocol/catalogue.js';
import { startPeriodic } from '../../shared/periodic.js';
import type { ControlClient } from '../control/control-client.js';
import { systemTimers, type Timers } from '../health/timers.js';
import { parseHostConfig, type HostTarget } from './host-config.js';

export const REFRESH_MS = 60_000;
/** Access changes often come in bursts (a policy edit touches many identities): one question per burst. */
export const ACCESS_DEBOUNCE_MS = 1_000;
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_PAGES = 1_000;
const DELETE_BATCH = 1_000;

export interface HostedServicesDeps {
  control: Pick<ControlClient, 'request' | 'connected' | 'controller'>;
  log: Logger;
  timers?: Timers;
}

export interface HostedServices {
  /** After every (re)connect to a controller, once the router's ReconcileTerminators has been answered. */
  connected(): void;
  /** Revocations the controller pushed: access changes and terminator deletions concern the tunnel. */
  revocations(items: readonly Revocation[]): void;
  /** The target behind one of this router's tunnel terminators. */
  targetFor(terminatorId: string): HostTarget | undefined;
  /** This router's tunnel terminators (for the ReconcileTerminators keep list). */
  terminatorIds(): string[];
  /** Asks the controller now and brings the terminators in line (what the timers do). */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

interface Hosted {
  terminatorId: string;
  target: HostTarget;
}

export function createHostedServices(deps: HostedServicesDeps): HostedServices {
  const { control, log } = deps;
  const timers = deps.timers ?? systemTimers;
  /** By definition key (service, index, config): a changed config is a new key, so its terminator is replaced. */
  const byKey = new Map<string, Hosted>();
  const byTerminator = new Map<string, Hosted>();
  const reported = new Set<string>();
  let notAllowedLogged = false;
  let running: Promise<void> | undefined;
  let again = false;
  let debounce: unknown;
  let stopped = false;

  function routerName(): string {
    const hello = control.controller;
    return hello ? `'${hello.routerName}' (${hello.routerId})` : 'this router';
  }

  async function fetchAll(): Promise<{ identityId: string; services: HostedService[] } | undefined> {
    const services: HostedService[] = [];
    let after: string | undefined;
    let identityId = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      let answer;
      try {
        answer = await control.request(ControlType.HostedServices, after ? { after } : {}, HostedServicesAnswerSchema, REQUEST_TIMEOUT_MS);
      } catch (error) {
        if ((error as { code?: string }).code === ControlErrorCode.NotAllowed) {
          if (!notAllowedLogged) {
            notAllowedLogged = true;
            log.warn(
              `router ${routerName()} has a tunnel listener but is not tunneler-enabled, so it hosts no service: set isTunnelerEnabled to true on the edge router (PATCH /edge/management/v1/edge-routers/<id>) and give its identity Bind access`,
            );
          }
          return { identityId: '', services: [] };
        }
        log.warn({ err: error }, `the services this router hosts could not be read: ${(error as Error).message}`);
        return undefined;
      }
      notAllowedLogged = false;
      identityId = answer.identityId;
      services.push(...answer.services);
      if (!answer.next) break;
      after = answer.next;
    }
    return { identityId, services };
  }

  /** The definitions to host: by key, with their target; unhostable ones are logged once each. */
  function desired(services: HostedService[]): Map<string, HostTarget> {
    const wanted = new Map<string, HostTarget>();
    for (const service of services) {
      const digest = createHash('sha256').update(JSON.stringify([service.configType, service.config, service.encryptionRequired])).digest('base64url');
      const { targets, problems } = parseHostConfig(service);
      for (const { field, problem } of problems) {
        const once = `${service.id}:${digest}:${field}`;
        if (reported.has(once)) continue;
        reported.add(once);
        log.warn({ service: service.name, field }, `service '${service.name}' is not hosted as its ${service.configType} config's ${field} ${problem}`);
      }
      for (const target of targets) wanted.set(`${service.id}#${target.index}#${digest}`, target);
    }
    return wanted;
  }

  async function create(key: string, target: HostTarget, identityId: string): Promise<void> {
    try {
      const answer = await control.request(
        ControlType.CreateTerminator,
        {
          serviceId: target.serviceId,
          binding: 'tunnel',
          address: target.address,
          hostId: identityId,
          ...(target.cost !== undefined ? { cost: target.cost } : {}),
          precedence: target.precedence,
        },
        TerminatorAnswerSchema,
        REQUEST_TIMEOUT_MS,
      );
      const hosted = { terminatorId: answer.id, target };
      byKey.set(key, hosted);
      byTerminator.set(answer.id, hosted);
      log.info({ service: target.serviceName, terminator: answer.id }, `service '${target.serviceName}' is hosted by this router's tunnel at ${target.address} (terminator ${answer.id})`);
    } catch (error) {
      log.warn({ service: target.serviceName, err: error }, `the tunnel terminator of service '${target.serviceName}' could not be created: ${(error as Error).message}`);
    }
  }

  async function remove(keys: string[]): Promise<void> {
    const ids: string[] = [];
    for (const key of keys) {
      const hosted = byKey.get(key);
      if (!hosted) continue;
      byKey.delete(key);
      byTerminator.delete(hosted.terminatorId);
      ids.push(hosted.terminatorId);
      log.info({ service: hosted.target.serviceName, terminator: hosted.terminatorId }, `service '${hosted.target.serviceName}' is no longer hosted by this router's tunnel`);
    }
    for (let at = 0; at < ids.length; at += DELETE_BATCH) {
      await control
        .request(ControlType.DeleteTerminators, { ids: ids.slice(at, at + DELETE_BATCH) }, EmptySchema, REQUEST_TIMEOUT_MS)
        .catch((error: unknown) => log.debug({ err: error }, 'tunnel terminators not deleted now; the next reconcile removes them'));
    }
  }

  async function once(): Promise<void> {
    if (!control.connected || stopped) return;
    const answer = await fetchAll();
    if (!answer) return;
    const wanted = desired(answer.services);
    await remove([...byKey.keys()].filter((key) => !wanted.has(key)));
    for (const [key, target] of wanted) if (!byKey.has(key) && !stopped) await create(key, target, answer.identityId);
  }

  function refresh(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await once();
      } while (again && !stopped);
    })().finally(() => (running = undefined));
    return running;
  }

  function soon(): void {
    if (debounce !== undefined || stopped) return;
    debounce = timers.setTimeout(() => {
      debounce = undefined;
      void refresh();
    }, ACCESS_DEBOUNCE_MS);
  }

  const periodic = startPeriodic(refresh, { intervalMs: REFRESH_MS, onError: (error) => log.warn({ err: error }, `hosted services not refreshed: ${(error as Error).message}`) });

  return {
    connected: () => void refresh(),
    revocations(items) {
      const identityId = control.controller?.routerId;
      let ask = false;
      for (const item of items) {
        if (item.kind === 'access' && (item.id === '*' || item.id === identityId)) ask = true;
        if (item.kind === 'terminator') {
          const hosted = byTerminator.get(item.id);
          if (!hosted) continue;
          // Gone at the controller; recreated only if the next answer still lists the service.
          byTerminator.delete(item.id);
          for (const [key, value] of byKey) if (value === hosted) byKey.delete(key);
          log.info({ service: hosted.target.serviceName, terminator: item.id }, `the controller removed tunnel terminator ${item.id} of service '${hosted.target.serviceName}': ${item.reason}`);
          ask = true;
        }
      }
      if (ask) soon();
    },
    targetFor: (id) => byTerminator.get(id)?.target,
    terminatorIds: () => [...byTerminator.keys()],
    refresh,
    async stop() {
      stopped = true;
      if (debounce !== undefined) timers.clearTimeout(debounce);
      await periodic.stop();
      await running;
    },
  };
}
