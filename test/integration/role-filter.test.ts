/**
 * `roleFilter` and `roleSemantic` on the management lists that the reference gives them (services, identities, edge
 * routers, posture checks; decision 0030): each list selects exactly the entities `matchesRoles` selects (the one
 * definition of a match) for every role list tried under both semantics, together with the client's filter, sort and
 * paging; ids of deleted or other-typed entities select nothing; every malformed role or semantic is a 400 naming
 * the parameter; only administrators may list.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { matchesRoles, parseRoles, type Semantic } from '../../src/policy/roles.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { createdId, managementClient, nonAdminToken, type ManagementClient } from '../helpers/management.js';

type Entity = { id: string; name: string; roleAttributes: string[] };

/** Each list, and a body creating one of its entities with a name and role attributes. */
const LISTS: Record<string, (name: string, roleAttributes: string[]) => Record<string, unknown>> = {
  '/services': (name, roleAttributes) => ({ name, roleAttributes }),
  '/identities': (name, roleAttributes) => ({ name, type: 'User', isAdmin: false, roleAttributes }),
  '/edge-routers': (name, roleAttributes) => ({ name, roleAttributes }),
  '/posture-checks': (name, roleAttributes) => ({ name, typeId: 'DOMAIN', domains: ['corp.example'], roleAttributes }),
};

/** Role attribute sets of the entities each list gets: every combination of three attributes, and one more. */
const HOLDINGS = [[], ['web'], ['db'], ['eu'], ['web', 'db'], ['web', 'eu'], ['db', 'eu'], ['web', 'db', 'eu'], ['other']];

/** `?roleFilter=…&roleFilter=…[&roleSemantic=…][&more]`, each value encoded (`#` must travel as %23). */
function query(roles: readonly string[], semantic?: string, more = ''): string {
  const params = roles.map((role) => `roleFilter=${encodeURIComponent(role)}`);
  if (semantic !== undefined) params.push(`roleSemantic=${encodeURIComponent(semantic)}`);
  if (more) params.push(more);
  return params.length ? `?${params.join('&')}` : '';
}

describe(`roleFilter and roleSemantic on management lists (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  /** The entities each list holds, as created. */
  const created: Record<string, Entity[]> = {};
  /** A deleted entity's id per list. */
  const deleted: Record<string, string> = {};

  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    for (const [path, body] of Object.entries(LISTS)) {
      const entities: Entity[] = [];
      for (const [i, roleAttributes] of HOLDINGS.entries()) {
        const name = `rf-${path.slice(1)}-${i}`;
        entities.push({ id: await createdId(admin, path, body(name, roleAttributes)), name, roleAttributes });
      }
      created[path] = entities;
      deleted[path] = await createdId(admin, path, body(`rf-${path.slice(1)}-gone`, ['web']));
      const gone = await admin.del(`${path}/${deleted[path]}`);
      assert.equal(gone.status, 200, gone.text);
    }
  });
  after(async () => ctl.close());

  /** The ids a list answers for the query (one page of up to 500, only the entities this test made). */
  async function listed(path: string, suffix: string): Promise<string[]> {
    const res = await admin.get(`${path}${suffix}${suffix ? '&' : '?'}limit=500`);
    assert.equal(res.status, 200, res.text);
    const mine = new Set(created[path]!.map((entity) => entity.id));
    return (res.json().data as Entity[]).map((item) => item.id).filter((id) => mine.has(id)).sort();
  }

  /** What `matchesRoles` selects among the entities of `path`. */
  function expected(path: string, roles: string[], semantic: Semantic): string[] {
    const parsed = parseRoles(roles);
    return created[path]!.filter((entity) => matchesRoles(parsed, semantic, entity)).map((entity) => entity.id).sort();
  }

  for (const path of Object.keys(LISTS)) {
    it(`GET ${path} selects exactly what matchesRoles selects, for every role list under both semantics`, async () => {
      const entities = created[path]!;
      const [first, second] = [entities[1]!.id, entities[8]!.id];
      const roleLists: string[][] = [
        ['#web'],
        ['#web', '#db'],
        ['#web', '#db', '#eu'],
        ['#nobody'],
        ['#web', '#nobody'],
        [`@${first}`],
        [`@${second}`, '#eu'],
        [`@${first}`, `@${second}`, '#web', '#db'],
        ['#all'],
      ];
      for (const roles of roleLists) {
        for (const semantic of ['AllOf', 'AnyOf'] as const) {
          assert.deepEqual(await listed(path, query(roles, semantic)), expected(path, roles, semantic), `${path} ${roles.join(',')} ${semantic}`);
        }
        // AllOf is the default.
        assert.deepEqual(await listed(path, query(roles)), expected(path, roles, 'AllOf'), `${path} ${roles.join(',')} default`);
      }
    });
  }

  it('takes a single roleFilter as a one-entry list, and no roleFilter (with or without roleSemantic) as no restriction', async () => {
    const all = created['/services']!.map((entity) => entity.id).sort();
    assert.deepEqual(await listed('/services', `?roleFilter=${encodeURIComponent('#eu')}`), expected('/services', ['#eu'], 'AllOf'));
    assert.deepEqual(await listed('/services', ''), all);
    assert.deepEqual(await listed('/services', '?roleSemantic=AnyOf'), all);
  });

  it('answers the largest role filter (256 roles) under both semantics', async () => {
    const roles = ['#web', ...Array.from({ length: 255 }, (_, i) => `#many-${i}`)];
    assert.deepEqual(await listed('/services', query(roles, 'AllOf')), []);
    assert.deepEqual(await listed('/services', query(roles, 'AnyOf')), expected('/services', ['#web'], 'AnyOf'));
  });

  it('combines the role filter with the filter, the sort and the paging, in the page and in the count', async () => {
    const roles = ['#web', '#eu'];
    const matching = created['/edge-routers']!.filter((entity) => matchesRoles(parseRoles(roles), 'AnyOf', entity));
    const byNameDesc = matching.map((entity) => entity.name).sort().reverse();
    const res = await admin.get(`/edge-routers${query(roles, 'AnyOf', `filter=${encodeURIComponent('name contains "rf-"')}&sort=${encodeURIComponent('name desc')}&limit=2&offset=1`)}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.json().data.map((item: Entity) => item.name), res.json().meta.pagination],
      [byNameDesc.slice(1, 3), { limit: 2, offset: 1, totalCount: matching.length }],
    );
    const narrowed = await admin.get(`/edge-routers${query(roles, 'AnyOf', `filter=${encodeURIComponent(`name = "${matching[0]!.name}"`)}`)}`);
    assert.deepEqual(narrowed.json().data.map((item: Entity) => item.id), [matching[0]!.id]);
  });

  it('selects nothing by the id of a deleted entity or of an entity of another type', async () => {
    for (const path of Object.keys(LISTS)) {
      assert.deepEqual(await listed(path, query([`@${deleted[path]}`])), [], path);
      const foreign = path === '/services' ? created['/identities']![1]!.id : created['/services']![1]!.id;
      const res = await admin.get(`${path}${query([`@${foreign}`])}`);
      assert.deepEqual([res.status, res.json().data], [200, []], path);
    }
  });

  it('follows role attribute changes at once', async () => {
    const entity = created['/posture-checks']![0]!;
    assert.equal((await admin.patch(`/posture-checks/${entity.id}`, { roleAttributes: ['late'] })).status, 200);
    assert.deepEqual(await listed('/posture-checks', query(['#late'])), [entity.id]);
    assert.equal((await admin.patch(`/posture-checks/${entity.id}`, { roleAttributes: [] })).status, 200);
    assert.deepEqual(await listed('/posture-checks', query(['#late'])), []);
  });

  describe('bad input', () => {
    /** Asserts a 400 with `code` naming `field` on every list. */
    async function refused(suffix: string, code: string, field: string) {
      for (const path of Object.keys(LISTS)) {
        const res = await admin.get(`${path}${suffix}`);
        assert.equal(res.status, 400, `${path}${suffix}: ${res.text}`);
        assert.deepEqual([res.json().error.code, res.json().error.cause.field], [code, field], `${path}${suffix}: ${res.text}`);
      }
    }

    it('refuses each role that is not a role expression, naming roleFilter', async () => {
      const bad: string[][] = [
        ['web'],
        [''],
        ['#'],
        ['@'],
        ['# web'],
        ['#web '],
        ['#' + 'x'.repeat(255)],
        ['#all', '#web'],
        ['#web', '#all'],
        ['#web', '#web'],
        ['#web', 'db'],
        Array.from({ length: 257 }, (_, i) => `#a${i}`),
      ];
      for (const roles of bad) await refused(query(roles), 'INVALID_FILTER', 'roleFilter');
    });

    it('names the offending entry and echoes only an excerpt of it', async () => {
      const res = await admin.get(`/services${query(['#ok', 'x'.repeat(300)])}`);
      assert.equal(res.status, 400);
      assert.match(res.json().error.message, /entry 1/);
      assert.ok(String(res.json().error.cause.value).length <= 65, res.text); // 64 characters and '…'
    });

    it('refuses a semantic other than AllOf or AnyOf, naming roleSemantic, with or without roles', async () => {
      for (const semantic of ['allof', 'ANYOF', 'Both', '', 'AllOf ']) {
        await refused(query(['#web'], semantic), 'INVALID_FILTER', 'roleSemantic');
        await refused(query([], semantic), 'INVALID_FILTER', 'roleSemantic');
      }
    });

    it('refuses roleSemantic given twice, naming it', async () => {
      await refused('?roleSemantic=AllOf&roleSemantic=AnyOf', 'COULD_NOT_VALIDATE', 'roleSemantic');
    });

    it('refuses a role filter beside a bad filter as before', async () => {
      await refused(query(['#web'], 'AnyOf', `filter=${encodeURIComponent('nope = 1')}`), 'INVALID_FILTER', 'filter');
    });

    it('answers 403 to a session that is not an administrator, with or without a role filter', async () => {
      const user = managementClient(ctl, await nonAdminToken(ctl, 'rf-user'));
      for (const path of Object.keys(LISTS)) {
        assert.equal((await user.get(`${path}${query(['#web'])}`)).status, 403, path);
        assert.equal((await user.get(`${path}${query(['web'])}`)).status, 403, path);
      }
    });
  });

  it('documents roleFilter and roleSemantic on the four lists in the served OpenAPI document', async () => {
    const doc = (await ctl.fetch('/edge/management/v1/specs/edge-management/spec')).json().data;
    for (const path of Object.keys(LISTS)) {
      const names = (doc.paths[path].get.parameters as Array<{ name: string }>).map((parameter) => parameter.name);
      assert.ok(names.includes('roleFilter') && names.includes('roleSemantic') && names.includes('filter'), `${path}: ${names.join(', ')}`);
    }
  });
});
