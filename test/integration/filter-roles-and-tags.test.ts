/**
 * Filters that address role attributes, policy roles and tags, as ZitiQL writes them: `anyOf(roleAttributes) = "x"`,
 * `allOf(…)`, `isEmpty(…)`, `tags.site = "s1"`, on the store under test; and the refusals that say how to write them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';

describe(`filters on role attributes and tags (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController({ inProcess: true });
    admin = managementClient(ctl, await ctl.adminToken());
    const identities: Array<[string, string[], Record<string, string | boolean | null>]> = [
      ['f-sales', ['sales'], { site: 's1', managed: true }],
      ['f-sales-ops', ['sales', 'ops'], { site: 's2', managed: false, 'service-id': 'crm-1' }],
      ['f-ops', ['ops'], { site: 'lab', flag: 'true' }],
      ['f-none', [], { site: null, flag: true }],
    ];
    for (const [name, roleAttributes, tags] of identities) {
      const res = await admin.post('/identities', { name, type: 'User', isAdmin: false, roleAttributes, tags });
      assert.equal(res.status, 201, res.text);
    }
    for (const [name, roleAttributes, tags] of [
      ['f-crm', ['crm', 'web'], { site: 's1' }],
      ['f-wiki', ['web'], { site: 's2' }],
    ] as const) {
      const res = await admin.post('/services', { name, roleAttributes, tags });
      assert.equal(res.status, 201, res.text);
    }
    for (const [name, tags] of [
      ['f-router-1', { site: 's1' }],
      ['f-router-2', {}],
    ] as const) {
      const res = await admin.post('/edge-routers', { name, tags });
      assert.equal(res.status, 201, res.text);
    }
    const policy = { type: 'Dial', semantic: 'AnyOf', serviceRoles: ['#web'] };
    for (const [name, identityRoles] of [
      ['f-sales-web', ['#sales']],
      ['f-ops-web', ['#ops', '#lab']],
    ] as const) {
      const res = await admin.post('/service-policies', { ...policy, name, identityRoles });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => ctl.close());

  const names = async (path: string, filter: string) => {
    const res = await admin.get(`${path}?limit=100&filter=${encodeURIComponent(filter)}`);
    assert.equal(res.status, 200, res.text);
    return res
      .json()
      .data.map((e: { name: string }) => e.name)
      .filter((n: string) => n.startsWith('f-'))
      .sort();
  };
  const refusal = async (path: string, query: string) => {
    const res = await admin.get(`${path}?${query}`);
    assert.equal(res.status, 400, res.text);
    return res.json().error as { code: string; message: string; cause: Record<string, unknown> };
  };

  it('selects identities by any of their role attributes, with =, in, contains and their negations', async () => {
    assert.deepEqual(await names('/identities', 'anyOf(roleAttributes) = "sales"'), ['f-sales', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'anyOf(roleAttributes) in ["ops", "nope"]'), ['f-ops', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'anyOf(roleAttributes) contains "al"'), ['f-sales', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'anyOf(roleAttributes) icontains "OP"'), ['f-ops', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'not anyOf(roleAttributes) = "sales"'), ['f-none', 'f-ops']);
    assert.deepEqual(await names('/identities', 'anyOf(roleAttributes) != "sales"'), ['f-ops', 'f-sales-ops'], 'some attribute other than sales');
    assert.deepEqual(await names('/identities', 'ANYOF(roleAttributes) = "sales" and anyOf(roleAttributes) = "ops"'), ['f-sales-ops']);
  });

  it('selects identities all of whose attributes match, and those with none', async () => {
    assert.deepEqual(await names('/identities', 'allOf(roleAttributes) = "sales" and not isEmpty(roleAttributes)'), ['f-sales']);
    assert.deepEqual(await names('/identities', 'allOf(roleAttributes) in ["sales", "ops"]'), ['f-none', 'f-ops', 'f-sales', 'f-sales-ops'], 'an empty set passes allOf');
    assert.deepEqual(await names('/identities', 'isEmpty(roleAttributes)'), ['f-none']);
  });

  it('selects identities by one tag: strings, booleans, missing values and keys with a dash', async () => {
    assert.deepEqual(await names('/identities', 'tags.site = "s1"'), ['f-sales']);
    assert.deepEqual(await names('/identities', 'tags.site in ["s1", "s2"]'), ['f-sales', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'tags.site contains "s"'), ['f-sales', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'tags.site != "s1"'), ['f-none', 'f-ops', 'f-sales-ops'], 'a null tag is not "s1"');
    assert.deepEqual(await names('/identities', 'tags.site = null'), ['f-none']);
    assert.deepEqual(await names('/identities', 'tags.site != null'), ['f-ops', 'f-sales', 'f-sales-ops']);
    assert.deepEqual(await names('/identities', 'tags.managed = true'), ['f-sales']);
    assert.deepEqual(await names('/identities', 'tags.managed = false'), ['f-sales-ops']);
    assert.deepEqual(await names('/identities', 'tags.flag = true'), ['f-none'], 'the boolean true, not the string "true"');
    assert.deepEqual(await names('/identities', 'tags.flag = "true"'), ['f-ops']);
    assert.deepEqual(await names('/identities', 'tags.managed in [true, "x"]'), ['f-sales']);
    assert.deepEqual(await names('/identities', 'tags.service-id = "crm-1"'), ['f-sales-ops']);
    assert.deepEqual(await names('/identities', 'tags.absent = null and anyOf(roleAttributes) = "ops"'), ['f-ops', 'f-sales-ops']);
  });

  it('filters services by role attributes and policies by their roles', async () => {
    assert.deepEqual(await names('/services', 'anyOf(roleAttributes) = "web"'), ['f-crm', 'f-wiki']);
    assert.deepEqual(await names('/services', 'allOf(roleAttributes) = "web"'), ['f-wiki']);
    assert.deepEqual(await names('/service-policies', 'anyOf(identityRoles) = "#sales"'), ['f-sales-web']);
    assert.deepEqual(await names('/service-policies', 'anyOf(identityRoles) = "#lab"'), ['f-ops-web']);
    assert.deepEqual(await names('/service-policies', 'allOf(serviceRoles) = "#web"'), ['f-ops-web', 'f-sales-web']);
  });

  it('selects services, edge routers and policies by a tag, as identities', async () => {
    assert.deepEqual(await names('/services', 'tags.site = "s1"'), ['f-crm']);
    assert.deepEqual(await names('/services', 'tags.site in ["s1", "s2"] and anyOf(roleAttributes) = "crm"'), ['f-crm']);
    assert.deepEqual(await names('/edge-routers', 'tags.site = "s1"'), ['f-router-1']);
    assert.deepEqual(await names('/edge-routers', 'tags.site = null'), ['f-router-2']);
    assert.deepEqual(await names('/service-policies', 'tags.site = null'), ['f-ops-web', 'f-sales-web']);
  });

  it('lists the set and tag fields among the filterable fields', async () => {
    const meta = (await admin.get('/identities?limit=1')).json().meta;
    assert.ok(meta.filterableFields.includes('roleAttributes'));
    assert.ok(meta.filterableFields.includes('tags'));
  });

  it('refuses a set or the tags used as a single value, saying how to write it', async () => {
    const bare = await refusal('/identities', `filter=${encodeURIComponent('roleAttributes = "sales"')}`);
    assert.equal(bare.code, 'INVALID_FILTER');
    assert.match(JSON.stringify(bare), /anyOf\(roleAttributes\)/);
    const tags = await refusal('/identities', `filter=${encodeURIComponent('tags = "s1"')}`);
    assert.equal(tags.code, 'INVALID_FILTER');
    assert.match(JSON.stringify(tags), /tags\.<key>/);
  });

  it('refuses set functions on other fields, orderings of tags and values of other types', async () => {
    const scalar = await refusal('/identities', `filter=${encodeURIComponent('anyOf(name) = "x"')}`);
    assert.match(scalar.message, /needs a set field, but 'name' is a string/);
    const unknown = await refusal('/identities', `filter=${encodeURIComponent('anyOf(roles) = "x"')}`);
    assert.match(unknown.message, /unknown field 'roles'/);
    const unclosed = await refusal('/identities', `filter=${encodeURIComponent('anyOf(roleAttributes = "x"')}`);
    assert.match(unclosed.message, /expected '\)'/);
    const ordered = await refusal('/identities', `filter=${encodeURIComponent('tags.site > "a"')}`);
    assert.match(ordered.message, /'>' cannot be used on tag field 'tags\.site'/);
    const number = await refusal('/identities', `filter=${encodeURIComponent('tags.site = 5')}`);
    assert.match(number.message, /expects a string or a boolean, found a number/);
    const notTags = await refusal('/identities', `filter=${encodeURIComponent('name.x = "a"')}`);
    assert.match(notTags.message, /unknown field 'name\.x'/);
  });

  it('refuses to sort by a set or by tags, in the filter or the sort parameter', async () => {
    const inFilter = await refusal('/identities', `filter=${encodeURIComponent('true sort by roleAttributes')}`);
    assert.equal(inFilter.code, 'INVALID_SORT_IDENTIFIER');
    assert.match(inFilter.message, /cannot sort by 'roleAttributes'/);
    const tag = await refusal('/identities', `filter=${encodeURIComponent('true sort by tags.site')}`);
    assert.equal(tag.code, 'INVALID_SORT_IDENTIFIER');
    const param = await refusal('/identities', 'sort=tags');
    assert.equal(param.code, 'INVALID_SORT_IDENTIFIER');
    assert.match(param.message, /cannot sort by 'tags'/);
  });
});
