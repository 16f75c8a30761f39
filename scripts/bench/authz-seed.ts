// Seeds an authorization network into a store for `npm run bench -- authz` (run through tsx by authz.mjs): the
// same generator and bulk writer the engine's tests use (test/helpers/authz-network.ts), straight into the store
// with its index rows, in batches. Prints JSON: seeding time, row counts, and a sample of identity ids.
// Arguments: <db target> <sizes JSON>.
import { sql } from 'kysely';
import { openDatabase, databaseTargetFromString } from '../../src/persistence/database.js';
import { insertNetwork, randomNetwork, seededRandom, type NetworkSizes } from '../../test/helpers/authz-network.js';
import { createIdentity } from '../../test/helpers/fixtures.js';
import { createIdentityRepository } from '../../src/persistence/repositories/identities.js';

const [target, sizesJson] = process.argv.slice(2);
if (!target || !sizesJson) throw new Error('usage: authz-seed.ts <db> <sizes JSON>');
const sizes = JSON.parse(sizesJson) as NetworkSizes;
const database = await openDatabase(databaseTargetFromString(target));
const random = seededRandom(20_261_123);
let started = process.hrtime.bigint();
const network = randomNetwork(random, sizes);
const generateMs = Number(process.hrtime.bigint() - started) / 1e6;
started = process.hrtime.bigint();
await insertNetwork(database, network);
const seedMs = Number(process.hrtime.bigint() - started) / 1e6;
// Identities with attributes: the typical caller (one with none sees only `#all` policies).
const sample = network.identities.filter((identity) => identity.roleAttributes.length > 0).slice(0, 200).map((identity) => identity.id);
const policy = network.servicePolicies.find((p) => p.identityRoles.length === 1 && p.identityRoles[0]?.startsWith('#') && p.identityRoles[0] !== '#all');
// A client identity with a password and a typical identity's attributes: the client API's measurements log in as it.
const typical = network.identities.find((identity) => identity.id === sample[0]);
const client = await createIdentity(database, { name: 'bench-client', username: 'bench-client', password: 'bench-client-password' });
const identities = createIdentityRepository(database);
const stored = await identities.findById(client.id);
if (stored && typical) await identities.update({ ...stored, roleAttributes: [...typical.roleAttributes] });
// PostgreSQL's size of the whole database; the SQLite file's is read by the caller.
const storeBytes =
  database.dialect === 'postgres' ? Number((await sql<{ size: string }>`select pg_database_size(current_database()) as size`.execute(database.db)).rows[0]?.size ?? 0) : undefined;
await database.close();
process.stdout.write(JSON.stringify({ generateMs, seedMs, storeBytes, sample, client: { username: 'bench-client', password: 'bench-client-password', id: client.id }, policy: policy ? { id: policy.id, role: policy.identityRoles[0] } : null }));
