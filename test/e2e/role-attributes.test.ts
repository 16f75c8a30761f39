/**
 * Role attributes and roles are unambiguous over the Management API (issue 40, item 7; decision 0059): a create of an
 * identity, a service, an edge router, a posture check or a CA-less policy with an attribute (or a `#attribute` role)
 * holding a zero-width or control character, white space at either end, text not in NFC, or a repeat is refused with
 * 400 naming the field with its index, the character and its position, and creates nothing; the same create with
 * clean attributes is the control.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestController, type TestController } from '../helpers/controller.js';
import { testDialect } from '../helpers/database.js';
import { managementClient, type ManagementClient } from '../helpers/management.js';

/** Each bad attribute list, the index refused, and what the reason must say. */
const BAD_LISTS: Array<{ list: string[]; index: number; says: RegExp }> = [
  { list: ['ok', 'ea\u200bst'], index: 1, says: /U\+200B ZERO WIDTH SPACE at character 3/ },
  { list: ['ea\u0007st'], index: 0, says: /control .*U\+0007 at character 3/ },
  { list: [' east'], index: 0, says: /begin or end with white space \(U\+0020 SPACE at character 1\)/ },
  { list: ['east\t'], index: 0, says: /begin or end with white space \(U\+0009 CHARACTER TABULATION at character 5\)/ },
  { list: ['cafe\u0301'], index: 0, says: /NFC: characters 4 to 5 \(U\+0065 U\+0301\) must be sent as U\+00E9/ },
  { list: ['web', 'ops', 'web'], index: 2, says: /repeats the attribute at index 0/ },
];

/** The entities that carry role attributes: where they are created, and a body but the attributes. */
const ENTITIES: Array<{ path: string; body: Record<string, unknown> }> = [
  { path: '/identities', body: { type: 'User', isAdmin: false } },
  { path: '/services', body: {} },
  { path: '/edge-routers', body: {} },
  { path: '/posture-checks', body: { typeId: 'MFA', timeoutSeconds: 300, promptOnWake: true } },
];

describe(`unambiguous role attributes (${testDialect})`, () => {
  let ctl: TestController;
  let admin: ManagementClient;
  before(async () => {
    ctl = await startTestController();
    admin = managementClient(ctl, await ctl.adminToken());
  });
  after(async () => ctl.close());

  const count = async (path: string, name: string) => (await admin.get(`${path}?filter=${encodeURIComponent(`name = "${name}"`)}`)).json().meta.pagination.totalCount as number;

  for (const { path, body } of ENTITIES) {
    it(`refuses each ambiguous roleAttributes list on POST ${path} naming the entry and the character, and creates nothing`, async () => {
      for (const [at, { list, index, says }] of BAD_LISTS.entries()) {
        const name = `bad-${at}`;
        const res = await admin.post(path, { ...body, name, roleAttributes: list });
        assert.equal(res.status, 400, `${JSON.stringify(list)}: ${res.text}`);
        const { code, message, cause } = res.json().error;
        assert.equal(code, 'COULD_NOT_VALIDATE');
        assert.equal(cause.field, `roleAttributes[${index}]`);
        // The value is echoed with invisible characters escaped (\u200b), so that the reader sees them.
        assert.equal(cause.value.replace(/\\u([0-9a-f]{4})/g, (_: string, hex: string) => String.fromCharCode(parseInt(hex, 16))), list[index]);
        assert.match(message, new RegExp(`roleAttributes\\[${index}\\] `));
        assert.match(cause.reason, says);
        assert.equal(await count(path, name), 0, `${path} ${JSON.stringify(list)} created nothing`);
      }
    });

    it(`creates on POST ${path} with clean attributes, accented ones in NFC included`, async () => {
      const res = await admin.post(path, { ...body, name: 'clean', roleAttributes: ['east', 'café', 'team 🚀'] });
      assert.equal(res.status, 201, res.text);
      const read = await admin.get(`${path}/${res.json().data.id}`);
      assert.deepEqual(read.json().data.roleAttributes, ['east', 'café', 'team 🚀']);
    });
  }

  it('refuses a #attribute role that could never match an attribute, naming the role and the character, and creates nothing', async () => {
    const cases: Array<{ roles: string[]; index: number; says: RegExp }> = [
      { roles: ['#east\u200b'], index: 0, says: /U\+200B ZERO WIDTH SPACE at character 6/ },
      { roles: ['#ok', '# east'], index: 1, says: /white space \(U\+0020 SPACE at character 2\)/ },
      { roles: ['#cafe\u0301'], index: 0, says: /NFC: characters 5 to 6/ },
      { roles: ['#a', '#a'], index: 1, says: /repeats the role at index 0/ },
    ];
    for (const [at, { roles, index, says }] of cases.entries()) {
      const name = `bad-policy-${at}`;
      const res = await admin.post('/service-policies', { name, type: 'Dial', semantic: 'AnyOf', identityRoles: roles, serviceRoles: ['#all'] });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json().error.cause.field, `identityRoles[${index}]`);
      assert.match(res.json().error.cause.reason, says);
      assert.equal(await count('/service-policies', name), 0);
    }
    const good = await admin.post('/service-policies', { name: 'good-policy', type: 'Dial', semantic: 'AnyOf', identityRoles: ['#east', '#café'], serviceRoles: ['#all'] });
    assert.equal(good.status, 201, good.text);
  });
});
