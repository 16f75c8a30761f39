/**
 * `/links` and `/circuits` of the Management API (administrators; issue 43; decision 0070): the router links the
 * routers report and the circuits dial decisions opened, read-only. Field names follow upstream's fabric API where
 * it has them (links: sourceRouter, destRouter, state, down, cost, staticCost, sourceLatency/destLatency in
 * nanoseconds, protocol, dialAddress; circuits: service, terminator, clientId, path {nodes, links}); `latencyMs` is
 * svc's own, the latency as the router reported it.
 */
import { Type, type TSchema } from 'typebox';
import type { CircuitListing, LinkListing } from '../../services/routers/fabric-admin.js';
import { ApiErrorBody, Envelope, IdParams, ListEnvelope, ListQueryParams } from '../schemas/common.js';
import { EntityRef } from '../schemas/identity.js';
import { envelope, listEnvelope, selfLink } from '../kit/envelope.js';
import { defineRoute } from '../kit/route.js';

const denied = { 401: ApiErrorBody, 403: ApiErrorBody };
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const LinkDetail = Type.Object({
  id: Type.String(),
  sourceRouter: EntityRef,
  destRouter: EntityRef,
  state: Type.String({ description: 'up: probes answered; stalled: the last probe went unanswered (not used for new circuits)' }),
  down: Type.Boolean({ description: 'true when either router is offline: listed, not used for new circuits' }),
  cost: Type.Integer({ description: 'what a path pays to cross the link: its latency in ms (1000 while unmeasured)' }),
  staticCost: Type.Integer(),
  latencyMs: Nullable(Type.Number()),
  sourceLatency: Nullable(Type.Integer({ description: 'nanoseconds' })),
  destLatency: Nullable(Type.Integer({ description: 'nanoseconds' })),
  protocol: Type.String(),
  dialAddress: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
  _links: Type.Record(Type.String(), Type.Object({ href: Type.String() })),
});

const IdRef = Type.Object({ id: Type.String(), _links: Type.Record(Type.String(), Type.Object({ href: Type.String() })) });
const CircuitDetail = Type.Object({
  id: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  service: EntityRef,
  terminator: IdRef,
  clientId: Type.String({ description: 'the dialing identity' }),
  apiSessionId: Nullable(Type.String()),
  path: Type.Object({ nodes: Type.Array(EntityRef), links: Type.Array(IdRef) }),
  _links: Type.Record(Type.String(), Type.Object({ href: Type.String() })),
});

const routerRef = (id: string, name: string) => ({ id, name, entity: 'edge-routers', _links: selfLink('edge-routers', id) });
const toNs = (ms: number | null) => (ms === null ? null : Math.round(ms * 1_000_000));

function linkView({ link, sourceName, destName, down }: LinkListing) {
  return {
    id: link.id,
    sourceRouter: routerRef(link.sourceRouterId, sourceName),
    destRouter: routerRef(link.destRouterId, destName),
    state: link.state,
    down,
    cost: Math.round(link.latencyMs ?? 1_000),
    staticCost: 0,
    latencyMs: link.latencyMs,
    sourceLatency: toNs(link.latencyMs),
    destLatency: toNs(link.latencyMs),
    protocol: 'tls',
    dialAddress: link.dialAddress,
    updatedAt: link.updatedAt.toISOString(),
    _links: selfLink('links', link.id),
  };
}

function circuitView({ circuit, serviceName, routerNames }: CircuitListing) {
  return {
    id: circuit.id,
    createdAt: circuit.createdAt.toISOString(),
    service: { id: circuit.serviceId, name: serviceName, entity: 'services', _links: selfLink('services', circuit.serviceId) },
    terminator: { id: circuit.terminatorId, _links: selfLink('terminators', circuit.terminatorId) },
    clientId: circuit.identityId,
    apiSessionId: circuit.apiSessionId,
    path: {
      nodes: circuit.path.map((id) => routerRef(id, routerNames.get(id) ?? '')),
      links: circuit.links.map((id) => ({ id, _links: selfLink('links', id) })),
    },
    _links: selfLink('circuits', circuit.id),
  };
}

export const fabricRoutes = [
  defineRoute({
    method: 'GET',
    url: '/links',
    operationId: 'listLinks',
    summary: 'Lists the links between routers, as the routers that dialed them report them',
    tags: ['Link'],
    access: 'admin',
    uses: ['fabric'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(LinkDetail), 400: ApiErrorBody, ...denied } },
    handler: async ({ domains, query }) => {
      const page = await domains.fabric.listLinks(query);
      return listEnvelope(page.items.map(linkView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/links/:id',
    operationId: 'detailLink',
    summary: 'Reads one link',
    tags: ['Link'],
    access: 'admin',
    uses: ['fabric'],
    schema: { params: IdParams, response: { 200: Envelope(LinkDetail), ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params }) => envelope(linkView(await domains.fabric.link(params.id))),
  }),
  defineRoute({
    method: 'GET',
    url: '/circuits',
    operationId: 'listCircuits',
    summary: 'Lists the open circuits: service, terminator, dialing identity and the path of routers and links',
    tags: ['Circuit'],
    access: 'admin',
    uses: ['fabric'],
    schema: { querystring: ListQueryParams, response: { 200: ListEnvelope(CircuitDetail), 400: ApiErrorBody, ...denied } },
    handler: async ({ domains, query }) => {
      const page = await domains.fabric.listCircuits(query);
      return listEnvelope(page.items.map(circuitView), page.pagination, page.filterableFields);
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/circuits/:id',
    operationId: 'detailCircuit',
    summary: 'Reads one circuit',
    tags: ['Circuit'],
    access: 'admin',
    uses: ['fabric'],
    schema: { params: IdParams, response: { 200: Envelope(CircuitDetail), ...denied, 404: ApiErrorBody } },
    handler: async ({ domains, params }) => envelope(circuitView(await domains.fabric.circuit(params.id))),
  }),
];
