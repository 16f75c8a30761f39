/**
 * The API specifications a listener serves (the informational "specs" operations): one OpenAPI document per
 * Edge API binding, generated once at start from the route tables.
 */
import type { RouteDef } from './route.js';
import { buildOpenApiDocument } from './openapi.js';
import type { SpecEntry, SpecRegistry } from './spec-registry.js';

export type { SpecEntry, SpecRegistry } from './spec-registry.js';

export function buildSpecRegistry(
  apis: { id: string; title: string; prefix: string; serverUrls: string[]; routes: readonly RouteDef[] }[],
  version: string,
  startedAt: Date,
): SpecRegistry {
  const specs = new Map<string, SpecEntry>();
  for (const api of apis) {
    specs.set(api.id, {
      id: api.id,
      name: api.id,
      document: buildOpenApiDocument({ title: api.title, version, prefix: api.prefix, serverUrls: api.serverUrls, routes: api.routes }),
      createdAt: startedAt,
    });
  }
  return specs;
}
