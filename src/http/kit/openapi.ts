/**
 * Generates the OpenAPI 3.0 document of an API binding from its route table: the very schemas that validate
 * requests describe them here, so the served specification cannot drift from the behaviour.
 */
import type { TSchema } from 'typebox';
import type { RouteDef } from './route.js';

interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  schema: unknown;
  description?: string;
}

function parametersOf(schema: TSchema | undefined, location: OpenApiParameter['in']): OpenApiParameter[] {
  const object = schema as { properties?: Record<string, TSchema & { description?: string }>; required?: string[] } | undefined;
  if (!object?.properties) return [];
  return Object.entries(object.properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (object.required ?? []).includes(name),
    schema: property,
    ...(property.description ? { description: property.description } : {}),
  }));
}

function requestBodyOf(route: RouteDef) {
  const content: Record<string, unknown> = {};
  if (route.schema.body) content['application/json'] = { schema: route.schema.body };
  for (const type of route.consumes ?? []) content[type] = { schema: { type: 'string' } };
  // A route that reads an empty body as none (route.ts `emptyJsonBody`) takes its body optionally (OpenAPI 3.0 §4.7.13).
  return Object.keys(content).length > 0 ? { requestBody: { required: route.emptyJsonBody !== true, content } } : {};
}

function operationOf(route: RouteDef) {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.schema.response)) {
    const content: Record<string, unknown> = { 'application/json': { schema } };
    if (Number(status) < 300) for (const type of route.produces ?? []) content[type] = { schema: { type: 'string' } };
    responses[status] = { description: Number(status) < 300 ? 'success' : 'error', content };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
    parameters: [
      ...parametersOf(route.schema.params, 'path'),
      ...parametersOf(route.schema.querystring, 'query'),
      ...parametersOf(route.schema.headers, 'header'),
    ],
    ...requestBodyOf(route),
    responses,
    security: route.access === 'none' ? [] : [{ svcSession: [] }, { oauth2: ['openid'] }],
  };
}

/** The OpenAPI document of one binding, with `servers` set to where it is served. */
export function buildOpenApiDocument(options: { title: string; version: string; prefix: string; serverUrls: string[]; routes: readonly RouteDef[] }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of options.routes) {
    const path = route.url.replace(/:(\w+)/g, '{$1}') || '/';
    (paths[path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.0.3',
    info: { title: options.title, version: options.version },
    servers: options.serverUrls.map((url) => ({ url })),
    paths,
    components: {
      securitySchemes: {
        svcSession: { type: 'apiKey', in: 'header', name: 'svc-session', description: 'Legacy API session token (deprecated)' },
        oauth2: {
          type: 'oauth2',
          flows: { authorizationCode: { authorizationUrl: '/oidc/authorization', tokenUrl: '/oidc/token', scopes: { openid: 'openid' } } },
        },
      },
    },
  };
}
