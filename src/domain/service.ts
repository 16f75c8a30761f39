/**
 * Services (issue 14; reference facts A1): what identities dial and bind. A service carries configs (at most one per
 * config type), role attributes that policies select it by, and the settings routers read when they build circuits.
 */
import type { Tags } from './config.js';

/**
 * How a service's terminators are chosen for a new circuit: `smartrouting` (the default, by cost), `weighted`,
 * `random`, `ha` (a primary with failover). Upstream also knows `sticky`; issue 14 names these four.
 */
export const TERMINATOR_STRATEGIES = ['smartrouting', 'weighted', 'random', 'ha'] as const;
export type TerminatorStrategy = (typeof TERMINATOR_STRATEGIES)[number];
export const DEFAULT_TERMINATOR_STRATEGY: TerminatorStrategy = 'smartrouting';

export interface Service {
  id: string;
  name: string;
  roleAttributes: string[];
  /** Config ids, sorted (the store keeps one row per config type, not an order). */
  configs: string[];
  /** Whether both ends must encrypt end to end; set at create and never changed (reference serviceUpdate). */
  encryptionRequired: boolean;
  /** A circuit idle this long is closed; 0 = never. */
  maxIdleTimeMillis: number;
  terminatorStrategy: string;
  tags: Tags;
  createdAt: Date;
  updatedAt: Date;
}
