/**
 * `svc edge reach IDENTITY SERVICE` (every layer between an identity and a service, ok or blocked, and what to open
 * to fix it: `GET /identities/{id}/reach/{serviceId}`) and `svc edge preview RESOURCE [ID|NAME] [--field …]` (who
 * would gain and lose access if a policy or an identity's role attributes changed, saving nothing:
 * `POST /change-previews`). Both are the console's screens of issue 45, as text or, with `-j`, the API's JSON.
 */
import type { Command } from 'commander';
import type { Output } from '../output.js';
import { usageError } from '../cli-error.js';
import { findResource, type ResourceSpec } from './catalogue.js';
import { managementClient } from './management-client.js';
import { resolveId, resolveReferences } from './resolve.js';
import { addFieldOptions, fieldValues, type Run } from './resource-tree.js';

interface Named {
  id: string;
  name: string;
}

function resource(catalogue: Map<string, ResourceSpec>, name: string): ResourceSpec {
  const found = findResource(catalogue, name);
  if (!found) throw usageError(`this controller's Management API has no ${name} resource`);
  return found;
}

export async function reachCommand(
  catalogue: Map<string, ResourceSpec>,
  args: { identity: string; service: string; permission: string; json: boolean },
  out: Output,
): Promise<number> {
  if (args.permission !== 'dial' && args.permission !== 'bind') throw usageError(`--permission: '${args.permission}' is neither dial nor bind`);
  const client = managementClient();
  const identityId = await resolveId(client, resource(catalogue, 'identity'), args.identity);
  const serviceId = await resolveId(client, resource(catalogue, 'service'), args.service);
  const path = `/identities/${encodeURIComponent(identityId as string)}/reach/${encodeURIComponent(serviceId as string)}`;
  const reach = (await client.call('GET', path, { query: { permission: args.permission } })).body?.data;
  if (args.json) {
    out.print(JSON.stringify(reach, null, 2));
    return 0;
  }
  out.print(`identity ${reach.identity.name} -> service ${reach.service.name} (${reach.permission}): ${reach.reachable ? 'reachable' : 'blocked'}`);
  const layers = reach.layers as { layer: string; ok: boolean; message: string; fix: { entity: string; id?: string; name?: string }[] }[];
  const width = Math.max(...layers.map((l) => l.layer.length));
  for (const layer of layers) {
    out.print(`  ${layer.ok ? 'pass   ' : 'BLOCKED'}  ${layer.layer.padEnd(width)}  ${layer.message}`);
    if (!layer.ok && layer.fix.length > 0) {
      const fixes = layer.fix.map((f) => (f.name ? `${f.entity} ${f.name}${f.id ? ` (${f.id})` : ''}` : f.id ? `${f.entity} ${f.id}` : f.entity));
      out.print(`  ${' '.repeat(7)}  ${' '.repeat(width)}  fix: ${fixes.join('; ')}`);
    }
  }
  return 0;
}

/** The collections the preview answers for, and the fields of each that change who has access. */
const PREVIEWABLE: Record<string, readonly string[]> = {
  'service-policies': ['type', 'semantic', 'identityRoles', 'serviceRoles'],
  'edge-router-policies': ['semantic', 'identityRoles', 'edgeRouterRoles'],
  'service-edge-router-policies': ['semantic', 'serviceRoles', 'edgeRouterRoles'],
  identities: ['roleAttributes'],
};

interface AccessChanges {
  count: number;
  countIsLowerBound: boolean;
  items: { identity?: Named; service?: Named; edgeRouter?: Named; permission?: string }[];
}

function printChanges(label: string, changes: AccessChanges, out: Output): void {
  out.print(`${label}: ${changes.count === 0 ? 'none' : `${changes.countIsLowerBound ? 'at least ' : ''}${changes.count}`}`);
  for (const item of changes.items) {
    const ends = [item.identity && `identity ${item.identity.name}`, item.service && `service ${item.service.name}`, item.edgeRouter && `edge router ${item.edgeRouter.name}`].filter(Boolean);
    out.print(`  ${ends.join(' -> ')}${item.permission ? ` (${item.permission})` : ''}`);
  }
  if (changes.items.length < changes.count) out.print(`  … and ${changes.count - changes.items.length} more`);
}

export async function previewCommand(
  catalogue: Map<string, ResourceSpec>,
  target: ResourceSpec,
  args: { ref?: string; remove: boolean; values: Record<string, unknown>; json: boolean },
  out: Output,
): Promise<number> {
  const usage = `svc edge preview ${target.singular}`;
  if (args.ref === undefined && (args.remove || target.plural === 'identities')) throw usageError(`${usage}: name the ${target.singular} to ${args.remove ? 'delete' : 'change'} (id or name)`);
  if (args.remove && Object.keys(args.values).length > 0) throw usageError(`${usage}: --delete previews removing the ${target.singular}; leave out the field options`);
  if (!args.remove && Object.keys(args.values).length === 0) throw usageError(`${usage}: give the change (see '${usage} --help') or --delete`);
  const client = managementClient();
  const id = args.ref === undefined ? undefined : await resolveId(client, target, args.ref);
  const change = await resolveReferences(client, catalogue, args.values, target);
  const body = { entity: target.plural, ...(id === undefined ? {} : { id }), ...(args.remove ? { delete: true } : { change }) };
  const preview = (await client.call('POST', '/change-previews', { body })).body?.data as { gains: AccessChanges; losses: AccessChanges };
  if (args.json) {
    out.print(JSON.stringify(preview, null, 2));
    return 0;
  }
  printChanges('gains', preview.gains, out);
  printChanges('losses', preview.losses, out);
  return 0;
}

/** Adds `svc edge reach` and `svc edge preview RESOURCE`, one sub-command per previewable resource the API has. */
export function addReachAndPreviewCommands(edge: Command, catalogue: Map<string, ResourceSpec>, out: Output, run: Run): void {
  edge
    .command('reach')
    .description('Says, layer by layer, whether an identity can reach a service, what blocks it and what to open to fix it')
    .argument('<identity>', 'id or name')
    .argument('<service>', 'id or name')
    .option('--permission <dial|bind>', 'what the identity would do with the service', 'dial')
    .option('-j, --json', 'print the layers as JSON')
    .action((identity: string, service: string, options: { permission: string; json?: boolean }) =>
      run(() => reachCommand(catalogue, { identity, service, permission: options.permission, json: options.json === true }, out)),
    );
  const preview = edge.command('preview').description('Says who would gain and who would lose access if a policy or an identity’s role attributes changed; saves nothing');
  for (const [plural, changes] of Object.entries(PREVIEWABLE)) {
    const target = findResource(catalogue, plural);
    const operation = target?.update ?? target?.create;
    if (!target || !operation) continue;
    const policy = target.plural !== 'identities';
    const command = preview
      .command(target.singular)
      .description(policy ? `a new ${target.singular}, a change to one or its delete` : `a change to an identity's role attributes`)
      .argument(policy ? '[id|name]' : '<id|name>', `the ${target.singular} to change${policy ? ' (none: a new one)' : ''}`);
    addFieldOptions(command, target, { ...operation, fields: operation.fields.filter((f) => changes.includes(f.name)) });
    if (policy) command.option('--delete', `preview deleting the ${target.singular}`);
    command.option('-j, --json', 'print the gains and losses as JSON').action((ref: string | undefined, options: Record<string, unknown>) =>
      run(() => previewCommand(catalogue, target, { ref, remove: options.delete === true, values: fieldValues(options), json: options.json === true }, out)),
    );
  }
}
