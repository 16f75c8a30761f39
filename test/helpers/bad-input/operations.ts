/**
 * Every operation the bad-input corpus attacks, read from what the controller serves rather than listed by hand:
 * the OpenAPI documents of the Edge APIs (so a route added to a route table is covered the day it is added) and
 * the OIDC provider's route table (which has no OpenAPI document). Builders return values and never assert.
 */
import { oidcRoutes } from '../../../src/oidc/routes.js';

/** A JSON Schema as the OpenAPI document carries it (TypeBox output). */
export type JsonSchema = Record<string, any>;

export type ApiName = 'edge-client' | 'edge-management' | 'oidc';

export interface Operation {
  api: ApiName;
  /** The route class the operation is tested in (an OpenAPI tag, or a group of provider endpoints). */
  group: string;
  method: string;
  /** Where the API is mounted: `/edge/client/v1`, or '' for the provider. */
  prefix: string;
  /** Path template below the prefix, `{name}` for path parameters. */
  path: string;
  operationId: string;
  /** Needs a session (the OpenAPI `security` is not empty). */
  authenticated: boolean;
  pathParams: string[];
  query: Array<{ name: string; schema: JsonSchema }>;
  headerParams: Array<{ name: string; schema: JsonSchema }>;
  /** The JSON request body schema, when the operation takes one. */
  jsonBody: JsonSchema | undefined;
  /** The body may be left out (OpenAPI `requestBody.required: false`): an empty body is then no body, not malformed JSON. */
  bodyOptional: boolean;
  /** Other request body types it reads (PEM CSRs). */
  otherBodyTypes: string[];
  /** Provider endpoints only: reads its query parameters (all of them, as OAuth parameters). */
  readsQuery: boolean;
  /** Provider endpoints only: takes no input at all (documents served to anyone). */
  inputless: boolean;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; tags?: string[]; security?: unknown[]; parameters?: any[]; requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> } }>>;
}

/** The operations of one served OpenAPI document. */
export function operationsFromOpenApi(api: Exclude<ApiName, 'oidc'>, prefix: string, document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const parameters = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      operations.push({
        api,
        group: `${api}: ${op.tags?.[0] ?? 'untagged'}`,
        method: method.toUpperCase(),
        prefix,
        path,
        operationId: op.operationId,
        authenticated: (op.security ?? []).length > 0,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name as string),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name as string, schema: p.schema as JsonSchema })),
        headerParams: parameters.filter((p) => p.in === 'header').map((p) => ({ name: p.name as string, schema: p.schema as JsonSchema })),
        jsonBody: content['application/json']?.schema,
        bodyOptional: op.requestBody?.required === false,
        otherBodyTypes: Object.keys(content).filter((type) => type !== 'application/json'),
        readsQuery: false,
        inputless: false,
      });
    }
  }
  return operations;
}

/**
 * Provider documents that take no input whatever is sent: discovery and the key set. Every other provider endpoint
 * reads OAuth parameters (from the query for GET, the body for POST and DELETE) or a Bearer token; a new endpoint is
 * attacked as one that does until it is named here.
 */
const INPUTLESS_PROVIDER_PATHS = new Set(['/.well-known/openid-configuration', '/oidc/.well-known/openid-configuration', '/oidc/keys']);
/** Provider GET endpoints that read a token rather than query parameters. */
const TOKEN_ONLY_PROVIDER_PATHS = new Set(['/oidc/userinfo']);

/** Which class a provider endpoint is tested in. */
function providerGroup(url: string): string {
  if (INPUTLESS_PROVIDER_PATHS.has(url)) return 'oidc: discovery and keys';
  if (url.startsWith('/oidc/login')) return 'oidc: login';
  if (url.startsWith('/oidc/authoriz')) return 'oidc: authorization';
  return 'oidc: tokens and sessions';
}

/** The provider's endpoints, from its route table (one operation per method). */
export function providerOperations(): Operation[] {
  return oidcRoutes.flatMap((endpoint) =>
    [endpoint.method].flat().map((method) => ({
      api: 'oidc' as const,
      group: providerGroup(endpoint.url),
      method,
      prefix: '',
      path: endpoint.url,
      operationId: `${method} ${endpoint.url}`,
      authenticated: false,
      pathParams: [],
      query: [],
      headerParams: [],
      jsonBody: undefined,
      bodyOptional: false,
      otherBodyTypes: [],
      readsQuery: method === 'GET' && !INPUTLESS_PROVIDER_PATHS.has(endpoint.url) && !TOKEN_ONLY_PROVIDER_PATHS.has(endpoint.url),
      inputless: INPUTLESS_PROVIDER_PATHS.has(endpoint.url),
    })),
  );
}

/** `/identities/{id}/authenticators` -> the collection whose items give real ids for `{id}`: `/identities`. */
export function collectionOf(path: string): string {
  return path.slice(0, path.indexOf('/{'));
}
