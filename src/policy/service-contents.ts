/**
 * What a client's service list says besides which services it holds (issue 15, item 5; decision 0032): the configs
 * of each service and their config types, and the posture checks of each policy, reduced to stamps. Together with the
 * service reach index (service-reach-state.ts) they give each identity a fingerprint of its service list, which moves
 * when, and only when, something the identity would read in that list changes.
 *
 * Stamps are 32-bit mixes of ids and update times: cheap to combine in any order, and a changed update time gives
 * another stamp. A pure structure; the reach index fills it from the store and follows the change log.
 */
import type { PostureCheck } from '../domain/posture-check.js';
import { matchesRoles, type ParsedRoles, type Semantic } from './roles.js';

export interface ReachConfig {
  id: string;
  configTypeId: string;
  /** Milliseconds since the epoch of the config's last change. */
  updatedAt: number;
}

export interface ReachConfigType {
  id: string;
  updatedAt: number;
}

export interface ReachPostureCheck {
  id: string;
  roleAttributes: readonly string[];
  updatedAt: number;
  /** The check whole, for evaluating it against a session without reading the store (posture checks are few). */
  check: PostureCheck;
}

/** FNV-1a over the UTF-16 units of `text`, from `seed`. */
export function hashText(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** Mixes a number into a hash (murmur3's finalizer over the sum). */
export function mix(hash: number, value: number): number {
  let h = (hash + Math.imul(value | 0, 0x9e3779b1) + Math.floor(value / 0x100000000)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export class ServiceContents {
  private readonly configs = new Map<string, ReachConfig>();
  private readonly types = new Map<string, ReachConfigType>();
  private readonly checks = new Map<string, ReachPostureCheck>();

  putConfig(config: ReachConfig): void {
    this.configs.set(config.id, config);
  }

  removeConfig(id: string): void {
    this.configs.delete(id);
  }

  putConfigType(type: ReachConfigType): void {
    this.types.set(type.id, type);
  }

  removeConfigType(id: string): void {
    this.types.delete(id);
  }

  putPostureCheck(check: ReachPostureCheck): void {
    this.checks.set(check.id, check);
  }

  removePostureCheck(id: string): void {
    this.checks.delete(id);
  }

  /** The posture check with id `id`, whole, if the index holds it. */
  postureCheck(id: string): PostureCheck | undefined {
    return this.checks.get(id)?.check;
  }

  /** A stamp of what the configs `configIds` say: each config's and its type's id and update time. */
  configStamp(configIds: readonly string[]): number {
    let stamp = 0;
    for (const id of configIds) {
      const config = this.configs.get(id);
      if (!config) continue;
      const type = this.types.get(config.configTypeId);
      stamp = (stamp + mix(mix(hashText(id), config.updatedAt), type?.updatedAt ?? 0)) >>> 0;
    }
    return stamp;
  }

  /** The ids of the posture checks `roles` select under `semantic`. */
  postureChecksOf(roles: ParsedRoles, semantic: Semantic): string[] {
    if (!roles.all && roles.ids.length === 0 && roles.attributes.length === 0) return [];
    return [...this.checks.values()].filter((check) => matchesRoles(roles, semantic, check)).map((check) => check.id);
  }

  /** A stamp of the posture checks `roles` select under `semantic`: their ids and update times. */
  postureStamp(roles: ParsedRoles, semantic: Semantic): number {
    if (!roles.all && roles.ids.length === 0 && roles.attributes.length === 0) return 0;
    let stamp = 0;
    for (const check of this.checks.values()) {
      if (matchesRoles(roles, semantic, check)) stamp = (stamp + mix(hashText(check.id), check.updatedAt)) >>> 0;
    }
    return stamp;
  }
}
