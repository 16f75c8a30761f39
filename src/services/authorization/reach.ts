/**
 * "Why can't X reach S?" layer by layer (issue 45; the console's reach page): every layer a connection meets, in
 * that order, each judged on its own (not only the first that blocks), with a sentence and the objects to change to
 * fix it. The policy facts come from the policy advice (one place decides, policy-advice.ts); this module adds the
 * identity's own state (disabled, enrollment, certificate), its current posture data judged against the granting
 * policies' checks (posture/explain.ts), and the service's terminators.
 */
import { X509Certificate } from 'node:crypto';
import type { ServicePolicyType } from '../../domain/policy.js';
import type { Terminator } from '../../domain/terminator.js';
import type { IdentityDetail, IdentityService } from '../identities/identities.js';
import type { PolicyAdvice, PolicyAdviceService } from './policy-advice.js';
import type { TerminatorService } from './terminators.js';
import type { PostureCheck } from '../../domain/posture-check.js';
import { checkFailure, passesAll, type PostureService, type SessionPosture } from '../posture/index.js';

export type ReachLayerName =
  | 'identity'
  | 'enrollment'
  | 'certificate'
  | 'service-policy'
  | 'posture'
  | 'edge-router-policy'
  | 'service-edge-router-policy'
  | 'online-router'
  | 'terminator';

/** What to open to fix a layer: a collection of the Management API, and the entity when there is one. */
export interface ReachFix {
  entity: 'identities' | 'services' | 'service-policies' | 'edge-router-policies' | 'service-edge-router-policies' | 'posture-checks' | 'edge-routers' | 'terminators' | 'cas';
  id?: string;
  name?: string;
}

export interface ReachLayer {
  layer: ReachLayerName;
  ok: boolean;
  message: string;
  fix: ReachFix[];
}

export interface Reach {
  identity: { id: string; name: string };
  service: { id: string; name: string };
  permission: 'dial' | 'bind';
  reachable: boolean;
  layers: ReachLayer[];
}

export interface ReachFacts {
  identity: IdentityDetail;
  advice: PolicyAdvice;
  /** The service's terminators (dial only). */
  terminators: readonly Terminator[];
  /** The granting policies' posture checks, whole, and what the identity's live API sessions reported. */
  posture: { checks: readonly PostureCheck[]; sessions: readonly SessionPosture[] };
  now: Date;
}

const layer = (name: ReachLayerName, ok: boolean, message: string, fix: ReachFix[] = []): ReachLayer => ({ layer: name, ok, message, fix });

/** The layers, from the facts gathered by the caller. Pure. */
export function explainReach(facts: ReachFacts, permission: 'dial' | 'bind'): Reach {
  const { advice, terminators, now } = facts;
  const { identity: entity, authenticators, enrollments: pending } = facts.identity;
  const identity = { ...entity, authenticators };
  const who = `identity '${identity.name}'`;
  const what = `service '${advice.service.name}'`;
  const identityFix: ReachFix = { entity: 'identities', id: identity.id, name: identity.name };
  const serviceFix: ReachFix = { entity: 'services', id: advice.service.id, name: advice.service.name };
  const type: ServicePolicyType = permission === 'dial' ? 'Dial' : 'Bind';
  const decision = permission === 'dial' ? advice.dial : advice.bind;
  const layers: ReachLayer[] = [];

  const disabledUntil = identity.disabledUntil ? ` until ${identity.disabledUntil.toISOString()}` : '';
  layers.push(identity.disabled ? layer('identity', false, `${who} is disabled${disabledUntil}: it cannot log in.`, [identityFix]) : layer('identity', true, `${who} is enabled.`));

  if (identity.authenticators.length > 0) {
    layers.push(layer('enrollment', true, `${who} has ${identity.authenticators.length} way(s) to log in (${identity.authenticators.map((a) => a.method).join(', ')}).`));
  } else if (pending.length === 0) {
    layers.push(layer('enrollment', false, `${who} has no way to log in: no authenticator and no pending enrollment. Create an enrollment for it.`, [identityFix]));
  } else {
    const expired = pending.filter((e) => e.expiresAt.getTime() <= now.getTime());
    const message =
      expired.length === pending.length
        ? `${who} never enrolled and its enrollment expired at ${expired[0]!.expiresAt.toISOString()}: issue a new one.`
        : `${who} has not enrolled yet: its ${pending.map((e) => e.method).join(', ')} enrollment is pending.`;
    layers.push(layer('enrollment', false, message, [identityFix]));
  }

  const certificates = identity.authenticators.filter((a) => a.method === 'cert' && a.certPem);
  if (certificates.length === 0) {
    layers.push(layer('certificate', true, `${who} logs in without a certificate of its own, or has none to expire.`));
  } else {
    const ends = certificates.map((a) => new Date(new X509Certificate(a.certPem!).validTo));
    const valid = ends.filter((end) => end.getTime() > now.getTime());
    const others = identity.authenticators.length > certificates.length;
    if (valid.length > 0) layers.push(layer('certificate', true, `${who}'s certificate is valid until ${new Date(Math.max(...valid.map((d) => d.getTime()))).toISOString()}.`));
    else layers.push(layer('certificate', others, `${who}'s certificate expired at ${ends[0]!.toISOString()}${others ? '; it has another way to log in' : ': it cannot log in with it'}.`, [identityFix]));
  }

  if (decision.allowed) {
    const names = decision.policies.map((entry) => `'${entry.policy.name}'`).join(', ');
    layers.push(layer('service-policy', true, `${type} is granted by ${names}.`, decision.policies.map((e) => ({ entity: 'service-policies' as const, id: e.policy.id, name: e.policy.name }))));
  } else {
    const reason = advice.reasons.find((text) => text.includes(`${type} service polic`) || text.startsWith(`No ${type} service policy`)) ?? `No ${type} service policy selects both ${who} and ${what}.`;
    layers.push(layer('service-policy', false, reason, [{ entity: 'service-policies' }, identityFix, serviceFix]));
  }

  if (!decision.allowed) {
    layers.push(layer('posture', true, 'No granting policy, so no posture check applies yet.'));
  } else if (decision.policies.some((entry) => entry.postureChecks.length === 0)) {
    layers.push(layer('posture', true, `A granting policy requires no posture check.`));
  } else {
    layers.push(postureLayer(decision.policies, facts.posture, who, now));
  }

  layers.push(
    advice.identityRouterCount > 0
      ? layer('edge-router-policy', true, `${who} may use ${advice.identityRouterCount} edge router(s).`)
      : layer('edge-router-policy', false, `No edge router policy gives ${who} an edge router.`, [{ entity: 'edge-router-policies' }, identityFix]),
  );
  layers.push(
    advice.serviceRouterCount > 0
      ? layer('service-edge-router-policy', true, `${what} may be reached through ${advice.serviceRouterCount} edge router(s).`)
      : layer('service-edge-router-policy', false, `No service edge router policy gives ${what} an edge router.`, [{ entity: 'service-edge-router-policies' }, serviceFix]),
  );

  const online = advice.commonRouters.filter((entry) => entry.isOnline);
  if (advice.commonRouterCount === 0) {
    layers.push(layer('online-router', false, `No edge router is both one ${who} may use and one ${what} may be reached through.`, [{ entity: 'edge-router-policies' }, { entity: 'service-edge-router-policies' }]));
  } else if (online.length === 0) {
    layers.push(
      layer(
        'online-router',
        false,
        `${advice.commonRouterCount} edge router(s) serve both, but none is online.`,
        advice.commonRouters.slice(0, 5).map((entry) => ({ entity: 'edge-routers' as const, id: entry.router.id, name: entry.router.name })),
      ),
    );
  } else {
    layers.push(layer('online-router', true, `${online.length} common edge router(s) are online: ${online.slice(0, 3).map((e) => `'${e.router.name}'`).join(', ')}.`));
  }

  if (permission === 'bind') {
    layers.push(layer('terminator', true, `Binding creates the terminator: none is needed beforehand.`));
  } else if (terminators.length === 0) {
    layers.push(layer('terminator', false, `${what} has no terminator: nothing hosts it (an identity that may bind it must be connected, or a router tunnel must host it).`, [serviceFix, { entity: 'terminators' }]));
  } else {
    layers.push(layer('terminator', true, `${what} has ${terminators.length} terminator(s).`));
  }

  return {
    identity: { id: identity.id, name: identity.name },
    service: { id: advice.service.id, name: advice.service.name },
    permission,
    reachable: layers.every((entry) => entry.ok),
    layers,
  };
}

/**
 * The posture layer when every granting policy names checks: ok when one policy's checks all pass on one of the
 * identity's live API sessions (a dial comes from one session), else each failing check with why, linked.
 */
function postureLayer(
  policies: PolicyAdvice['dial']['policies'],
  posture: ReachFacts['posture'],
  who: string,
  now: Date,
): ReachLayer {
  const whole = new Map(posture.checks.map((check) => [check.id, check]));
  const checksOf = (entry: (typeof policies)[number]) => entry.postureChecks.flatMap((check) => whole.get(check.id) ?? []);
  const passing = policies.find((entry) => passesAll(checksOf(entry), posture.sessions, now));
  if (passing) {
    const names = checksOf(passing).map((check) => `'${check.name}'`).join(', ');
    return layer('posture', true, `${who}'s current posture data passes the checks of policy '${passing.policy.name}' (${names}).`);
  }
  const checks = [...new Map(policies.flatMap(checksOf).map((check) => [check.id, check])).values()];
  const failures = checks.flatMap((check) => {
    const reason = checkFailure(check, posture.sessions, now);
    return reason === undefined ? [] : [{ check, reason }];
  });
  const fix = (failures.length > 0 ? failures.map((f) => f.check) : checks).map((check) => ({ entity: 'posture-checks' as const, id: check.id, name: check.name }));
  const message =
    failures.length > 0
      ? `Every granting policy requires posture checks that ${who}'s current posture data fails: ${failures.map((f) => `'${f.check.name}' (${f.check.typeId}): ${f.reason}`).join('; ')}.`
      : `Each check passes on some API session of ${who}, but no one session passes every check of a granting policy.`;
  return layer('posture', false, message, fix);
}

/** Gathers the facts and explains them: 404 naming the identity or the service when either is unknown. */
export async function reachOf(
  deps: {
    identities: Pick<IdentityService, 'get'>;
    advice: PolicyAdviceService;
    terminators: Pick<TerminatorService, 'listForService'>;
    /** Whole posture checks by id (the policy engine's index). */
    postureChecks: (ids: readonly string[]) => Promise<PostureCheck[]>;
    posture: Pick<PostureService, 'identityPosture'>;
    now: Date;
  },
  identityId: string,
  serviceId: string,
  permission: 'dial' | 'bind',
): Promise<Reach> {
  const identity = await deps.identities.get(identityId);
  const advice = await deps.advice.advise(identityId, serviceId);
  const terminators = permission === 'dial' ? await deps.terminators.listForService(serviceId) : [];
  const decision = permission === 'dial' ? advice.dial : advice.bind;
  const checkIds = [...new Set(decision.policies.flatMap((entry) => entry.postureChecks.map((check) => check.id)))];
  // Posture data is read only when some check could block.
  const posture =
    checkIds.length === 0 ? { checks: [], sessions: [] } : { checks: await deps.postureChecks(checkIds), sessions: await deps.posture.identityPosture(identity.identity.id, async () => identity.identity.sdkInfo) };
  return explainReach({ identity, advice, terminators, posture, now: deps.now }, permission);
}
