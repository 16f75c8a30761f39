/**
 * `svc edge policy-advice IDENTITY SERVICE` (whether an identity may dial and bind a service and, in words, what is
 * missing: the authorization model's advice) and `svc edge version` (the controller's version document).
 */
import type { Output } from '../output.js';
import { findResource, type ResourceSpec } from './catalogue.js';
import { usageError } from '../cli-error.js';
import type { ManagementClient } from './management-client.js';
import { resolveId } from './resolve.js';

function resource(catalogue: Map<string, ResourceSpec>, name: string): ResourceSpec {
  const found = findResource(catalogue, name);
  if (!found) throw usageError(`this controller's Management API has no ${name} resource`);
  return found;
}

export async function policyAdviceCommand(
  client: ManagementClient,
  catalogue: Map<string, ResourceSpec>,
  args: { identity: string; service: string; json: boolean },
  out: Output,
): Promise<number> {
  const identityId = await resolveId(client, resource(catalogue, 'identity'), args.identity);
  const serviceId = await resolveId(client, resource(catalogue, 'service'), args.service);
  const path = `/identities/${encodeURIComponent(identityId as string)}/policy-advice/${encodeURIComponent(serviceId as string)}`;
  const advice = (await client.call('GET', path)).body?.data;
  if (args.json) {
    out.print(JSON.stringify(advice, null, 2));
    return 0;
  }
  const yes = (allowed: boolean) => (allowed ? 'yes' : 'no');
  const routers = (advice.commonRouters ?? []) as { name: string; isOnline: boolean }[];
  out.print(`identity ${advice.identity?.name} -> service ${advice.service?.name}`);
  out.print(`  may dial: ${yes(advice.isDialAllowed)}`);
  out.print(`  may bind: ${yes(advice.isBindAllowed)}`);
  out.print(`  routers: ${advice.identityRouterCount} for the identity, ${advice.serviceRouterCount} for the service, ${advice.commonRouterCount} in common${routers.length > 0 ? ` (${routers.map((r) => `${r.name}${r.isOnline ? '' : ' offline'}`).join(', ')})` : ''}`);
  for (const reason of (advice.reasons ?? []) as string[]) out.print(`  - ${reason}`);
  return 0;
}

export async function versionCommand(client: ManagementClient, out: Output): Promise<number> {
  out.print(JSON.stringify((await client.call('GET', '/version')).body?.data, null, 2));
  return 0;
}
