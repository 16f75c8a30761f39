/**
 * Links and circuits as administrators read them (`/links`, `/circuits` of the Management API; decision 0070): lists
 * with paging, filter and sort like every other list, one by id (404 naming it), each with the names of the routers,
 * service and identity it refers to, read once for the whole page.
 */
import type { Circuit, Link } from '../../domain/fabric.js';
import { ApiError } from '../../errors/api-error.js';
import type { Database } from '../../persistence/database.js';
import { CIRCUIT_FIELDS, createCircuitRepository } from '../../persistence/repositories/circuits.js';
import { createLinkRepository, LINK_FIELDS } from '../../persistence/repositories/links.js';
import { namesOf } from '../../persistence/repositories/terminators.js';
import { parseListParams, type RawListParams } from '../../persistence/query/list-query.js';
import type { ListPage } from '../list-page.js';

/** A link with its routers' names, and whether both ends are online now. */
export interface LinkListing {
  link: Link;
  sourceName: string;
  destName: string;
  /** Either end offline: the link is listed but not used for new circuits. */
  down: boolean;
}

/** A circuit with the names of what it refers to (empty when that was deleted since). */
export interface CircuitListing {
  circuit: Circuit;
  serviceName: string;
  clientName: string;
  routerNames: Map<string, string>;
}

export interface FabricAdmin {
  listLinks(params: RawListParams): Promise<ListPage<LinkListing>>;
  link(id: string): Promise<LinkListing>;
  listCircuits(params: RawListParams): Promise<ListPage<CircuitListing>>;
  circuit(id: string): Promise<CircuitListing>;
}

const notFound = (what: string, id: string) => new ApiError('NOT_FOUND', { message: `No ${what} has the id '${id}'`, cause: { field: 'id', value: id } });

export function buildFabricAdmin(database: Database, deps: { online(routerIds: readonly string[]): Promise<Map<string, { isOnline: boolean }>> }): FabricAdmin {
  const links = createLinkRepository(database);
  const circuits = createCircuitRepository(database);

  async function linkListings(items: Link[]): Promise<LinkListing[]> {
    const ids = items.flatMap((link) => [link.sourceRouterId, link.destRouterId]);
    const [names, status] = await Promise.all([namesOf(database.db, 'edge_routers', ids), deps.online([...new Set(ids)])]);
    return items.map((link) => ({
      link,
      sourceName: names.get(link.sourceRouterId) ?? '',
      destName: names.get(link.destRouterId) ?? '',
      down: !(status.get(link.sourceRouterId)?.isOnline && status.get(link.destRouterId)?.isOnline),
    }));
  }

  async function circuitListings(items: Circuit[]): Promise<CircuitListing[]> {
    const [services, identities, routerNames] = await Promise.all([
      namesOf(database.db, 'services', items.map((c) => c.serviceId)),
      namesOf(database.db, 'identities', items.map((c) => c.identityId)),
      namesOf(database.db, 'edge_routers', items.flatMap((c) => c.path)),
    ]);
    return items.map((circuit) => ({ circuit, serviceName: services.get(circuit.serviceId) ?? '', clientName: identities.get(circuit.identityId) ?? '', routerNames }));
  }

  return {
    async listLinks(params) {
      const query = parseListParams(params, LINK_FIELDS);
      const { items, totalCount } = await links.list(query);
      return { items: await linkListings(items), pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(LINK_FIELDS) };
    },
    async link(id) {
      const found = await links.findById(id);
      if (!found) throw notFound('link', id);
      return (await linkListings([found]))[0] as LinkListing;
    },
    async listCircuits(params) {
      const query = parseListParams(params, CIRCUIT_FIELDS);
      const { items, totalCount } = await circuits.list(query);
      return { items: await circuitListings(items), pagination: { limit: query.limit, offset: query.offset, totalCount }, filterableFields: Object.keys(CIRCUIT_FIELDS) };
    },
    async circuit(id) {
      const found = await circuits.findById(id);
      if (!found) throw notFound('circuit', id);
      return (await circuitListings([found]))[0] as CircuitListing;
    },
  };
}
