/**
 * A router's hello as the control plane hands it to router presence (seam 5 of issue 41): what a test passes to
 * `routerPresence.connected(...)` where a router's control channel would. Builds values only; never asserts.
 */
import type { RouterHello } from '../../src/services/routers/index.js';

/** A hello from host `hostname` advertising `advertise` (e.g. `tls:er1.example:3022`) as its edge listeners. */
export function routerHello(hostname: string, advertise: readonly string[], overrides: Partial<RouterHello> = {}): RouterHello {
  return {
    hostname,
    version: 'v0.41.0',
    versionInfo: { version: 'v0.41.0', revision: 'abc1234', buildDate: '2026-01-01T00:00:00Z', os: 'linux', arch: 'amd64' },
    listeners: advertise.map((address) => ({ binding: 'edge', advertise: address })),
    capabilities: [],
    ...overrides,
  };
}
