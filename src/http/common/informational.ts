/**
 * Informational operations served by both Edge APIs without a session: version (also at the API root),
 * capabilities, listening protocols, and the API specifications (spec: Edge Client API operations, Informational).
 */
import { ApiError } from '../../errors/api-error.js';
import { KNOWN_CAPABILITIES } from '../../services/controllers/version.js';
import { ApiErrorBody, Envelope, IdParams, ListEnvelope } from '../schemas/common.js';
import { Capabilities, Protocols, Spec, SpecBody, Version } from '../schemas/informational.js';
import { envelope, listEnvelope } from '../kit/envelope.js';
import { defineRoute, type RouteDef } from '../kit/route.js';
import type { SpecEntry } from '../kit/specs.js';

const tags = ['Informational'];

function specView(spec: SpecEntry) {
  const at = spec.createdAt.toISOString();
  return {
    id: spec.id,
    name: spec.name,
    createdAt: at,
    updatedAt: at,
    tags: {},
    _links: { self: { href: `./specs/${spec.id}` }, spec: { href: `./specs/${spec.id}/spec` } },
  };
}

const versionRoute = (operationId: string, url: string) =>
  defineRoute({
    method: 'GET',
    url,
    operationId,
    summary: 'Returns version information',
    tags,
    access: 'none',
    uses: ['version'],
    schema: { response: { 200: Envelope(Version) } },
    handler: ({ domains }) => envelope(domains.version),
  });

export function informationalRoutes(): RouteDef[] {
  return [
    versionRoute('listRoot', '/'),
    versionRoute('listVersion', '/version'),
    defineRoute({
      method: 'GET',
      url: '/enumerated-capabilities',
      operationId: 'listEnumeratedCapabilities',
      summary: 'Lists every capability the controller knows, enabled or not',
      tags,
      access: 'none',
      uses: [],
      schema: { response: { 200: Envelope(Capabilities) } },
      handler: () => envelope([...KNOWN_CAPABILITIES]),
    }),
    defineRoute({
      method: 'GET',
      url: '/protocols',
      operationId: 'listProtocols',
      summary: 'Lists the listening edge protocols',
      tags,
      access: 'none',
      uses: ['config'],
      schema: { response: { 200: Envelope(Protocols) } },
      handler: ({ domains }) => {
        const address = domains.config.edge?.api.address.text;
        return envelope(address ? { https: { address } } : {});
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/specs',
      operationId: 'listSpecs',
      summary: 'Lists the API specifications this controller serves',
      tags,
      access: 'none',
      uses: [],
      schema: { response: { 200: ListEnvelope(Spec) } },
      handler: ({ api }) => {
        const specs = [...api.specs.values()].map(specView);
        return listEnvelope(specs, { limit: specs.length, offset: 0, totalCount: specs.length }, []);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/specs/:id',
      operationId: 'detailSpec',
      summary: 'Returns one API specification resource',
      tags,
      access: 'none',
      uses: [],
      schema: { params: IdParams, response: { 200: Envelope(Spec), 404: ApiErrorBody } },
      handler: ({ api, params }) => envelope(specView(findSpec(api.specs, params.id))),
    }),
    defineRoute({
      method: 'GET',
      url: '/specs/:id/spec',
      operationId: 'detailSpecBody',
      summary: 'Returns the body of one API specification (OpenAPI 3 JSON)',
      tags,
      access: 'none',
      uses: [],
      schema: { params: IdParams, response: { 200: Envelope(SpecBody), 404: ApiErrorBody } },
      handler: ({ api, params }) => envelope(findSpec(api.specs, params.id).document),
    }),
  ];
}

function findSpec(specs: ReadonlyMap<string, SpecEntry>, id: string): SpecEntry {
  const spec = specs.get(id);
  if (!spec) throw new ApiError('NOT_FOUND', { message: `No API specification with id '${id}' (known: ${[...specs.keys()].join(', ')})` });
  return spec;
}

