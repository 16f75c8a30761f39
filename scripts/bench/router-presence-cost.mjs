// What router presence costs the store (decision 0064): the mean time of one `connected` (an upsert) over N routers,
// and of one `statusOf` for a page of 500 (the one query every router list makes). Needs `npm run build`. Prints
// JSON. Usage: node scripts/bench/router-presence-cost.mjs [routers=1000] [postgres-url] (default SQLite in memory).
import { openDatabase } from '../../dist/persistence/database.js';
import { createControllerRepository } from '../../dist/persistence/repositories/controllers.js';
import { buildRouterPresence } from '../../dist/services/routers/index.js';
import { systemClock } from '../../dist/shared/clock.js';

const [count = '1000', url] = process.argv.slice(2);
const database = await openDatabase(url ? { kind: 'postgres', url } : { kind: 'sqlite', path: ':memory:' });
const now = new Date();
const iso = now.toISOString();
const controllerId = await createControllerRepository(database).upsert({
  id: `bench-${Date.now()}`, name: `bench-${Date.now()}`, certPem: '', fingerprint: '', apiAddresses: {}, isOnline: true, lastJoinedAt: now, createdAt: now, updatedAt: now,
});
const ids = Array.from({ length: Number(count) }, (_, i) => `bench-router-${Date.now()}-${i}`);
for (const id of ids) {
  await database.db.insertInto('edge_routers').values({
    id, name: id, role_attributes: '[]', is_tunneler_enabled: false, cost: 0, no_traversal: false, disabled: false, app_data: '{}', tags: '{}',
    fingerprint: null, cert_pem: null, is_verified: false, enrollment_token_hash: null, enrollment_jwt: null, enrollment_expires_at: null,
    connection: '{}', created_at: iso, updated_at: iso,
  }).execute();
}
const presence = buildRouterPresence(database, { clock: systemClock, controllerId });
const hello = (id) => ({
  hostname: `${id}.example`, version: 'v0', versionInfo: { version: 'v0', revision: '', buildDate: '', os: 'linux', arch: 'amd64' },
  listeners: [{ binding: 'edge', advertise: `tls:${id}.example:3022` }], capabilities: [],
});
let started = performance.now();
for (const id of ids) await presence.connected(id, hello(id));
const connectMs = (performance.now() - started) / ids.length;
const page = ids.slice(0, 500);
for (let i = 0; i < 5; i++) await presence.statusOf(page);
const runs = 50;
started = performance.now();
for (let i = 0; i < runs; i++) await presence.statusOf(page);
const statusMs = (performance.now() - started) / runs;
await database.db.deleteFrom('edge_routers').where('id', 'in', ids).execute();
await database.close();
console.log(JSON.stringify({ dialect: database.dialect, routers: ids.length, connectedMeanMs: +connectMs.toFixed(3), statusOfPage500MeanMs: +statusMs.toFixed(2) }));
