// A device identity for `npm run bench -- client-flood` (run through tsx by client-flood.mjs): one non-administrator
// with a password, written through the repositories the controller uses. Prints its id.
// Arguments: <db target> <username> <password>.
import { openDatabase, databaseTargetFromString } from '../../src/persistence/database.js';
import { createIdentity } from '../../test/helpers/fixtures.js';

const [target, username, password] = process.argv.slice(2);
if (!target || !username || !password) throw new Error('usage: client-flood-seed.ts <db> <username> <password>');
const database = await openDatabase(databaseTargetFromString(target));
const { id } = await createIdentity(database, { name: username, username, password });
await database.close();
process.stdout.write(id);
