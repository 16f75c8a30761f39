/**
 * The `svc edge` resource commands are made from a Management API document: these check that reading, on the
 * document this build generates from its route table and on a document with a resource the CLI has never heard of.
 * @store-independent: nothing here reads the store under test, so npm test runs this file in one pass (decision 0061).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { EDGE_MANAGEMENT_PREFIX, edgeManagementRoutes } from '../../src/http/edge-management/routes.js';
import { buildOpenApiDocument } from '../../src/http/kit/openapi.js';
import { catalogueOf, singularOf } from '../../src/cli/edge/catalogue.js';
import { parseFieldValue } from '../../src/cli/edge/field-options.js';
import { addResourceCommands } from '../../src/cli/edge/resource-tree.js';
import { completions } from '../../src/cli/completion.js';

const builtIn = () =>
  catalogueOf(buildOpenApiDocument({ title: 't', version: '1', prefix: EDGE_MANAGEMENT_PREFIX, serverUrls: [], routes: edgeManagementRoutes }));

/** A document with one resource no CLI code names, shaped as openapi.ts writes them. */
function widgetDocument() {
  const envelope = (data: unknown) => ({ content: { 'application/json': { schema: { type: 'object', properties: { data } } } } });
  const item = { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, size: { type: 'integer' }, colour: { enum: ['red', 'blue'] }, createdAt: { type: 'string' } } };
  const body = {
    type: 'object',
    required: ['name', 'size'],
    properties: { name: { type: 'string' }, size: { type: 'integer', minimum: 1, maximum: 9 }, colour: { enum: ['red', 'blue'] }, labels: { type: 'array', items: { type: 'string' } } },
  };
  return {
    paths: {
      '/widgets': {
        get: { summary: 'Lists widgets', responses: { 200: envelope({ type: 'array', items: item }) } },
        post: { summary: 'Creates a widget', requestBody: { content: { 'application/json': { schema: body } } }, responses: {} },
      },
      '/widgets/{id}': {
        get: { summary: 'Returns a widget', responses: { 200: envelope(item) } },
        delete: { summary: 'Deletes a widget', responses: {} },
      },
      '/current-identity': { get: { summary: 'not a list', responses: { 200: envelope(item) } } },
    },
  };
}

describe('svc edge catalogue', () => {
  it('finds every resource of the route table with its operations and fields', () => {
    const catalogue = builtIn();
    for (const name of ['identity', 'service', 'service-policy', 'edge-router-policy', 'service-edge-router-policy', 'config-type', 'terminator', 'audit-log']) {
      assert.ok(catalogue.has(name), name);
    }
    const policy = catalogue.get('service-policy')!;
    assert.equal(policy.plural, 'service-policies');
    assert.deepEqual(policy.create?.fields.find((f) => f.name === 'type')?.choices, ['Dial', 'Bind']);
    assert.equal(policy.create?.fields.find((f) => f.name === 'identityRoles')?.kind, 'string-array');
    assert.equal(policy.update?.method, 'PATCH');
    assert.equal(catalogue.get('identity')!.enrolls, true);
    assert.equal(catalogue.get('service')!.enrolls, false);
    assert.equal(catalogue.has('current-identity'), false);
  });

  it('makes commands, options and completions for a resource no CLI code names', () => {
    const catalogue = catalogueOf(widgetDocument());
    assert.deepEqual([...catalogue.keys()], ['widget']);
    const widget = catalogue.get('widget')!;
    // What a create sets comes first, in the body's order; then the other short facts.
    assert.deepEqual(widget.columns, ['id', 'name', 'size', 'colour']);
    assert.equal(widget.update, undefined);

    const program = new Command('svc');
    addResourceCommands(program.command('edge'), catalogue, { print: () => {}, error: () => {} }, async () => {});
    assert.deepEqual(completions(program, ['edge', 'create', 'wid']), ['widget', 'widgets']);
    assert.deepEqual(completions(program, ['edge', 'create', 'widget', '--']), ['--colour', '--data', '--help', '--json', '--labels', '--name', '--size']);
    assert.deepEqual(completions(program, ['edge', 'update', 'w']), []);
  });

  it('converts field values by their schema and refuses the wrong form', () => {
    const widget = catalogueOf(widgetDocument()).get('widget')!;
    const field = (name: string) => widget.create!.fields.find((f) => f.name === name)!;
    assert.equal(parseFieldValue(field('size'), '7'), 7);
    assert.throws(() => parseFieldValue(field('size'), '10'), /expected an integer from 1 to 9/);
    assert.throws(() => parseFieldValue(field('size'), '2.5'), /expected an integer from 1 to 9/);
    assert.throws(() => parseFieldValue(field('colour'), 'green'), /expected one of red, blue/);
    assert.deepEqual(parseFieldValue(field('labels'), 'a, b'), ['a', 'b']);
    assert.deepEqual(parseFieldValue(field('labels'), ''), []);
  });

  it('names a resource by the singular of its path', () => {
    assert.deepEqual(['identities', 'service-policies', 'configs', 'audit-log'].map(singularOf), ['identity', 'service-policy', 'config', 'audit-log']);
  });
});
