/**
 * The client API's `GET /services` answer written as JSON from parts kept between answers (issue 15, latency at
 * size). A service's caller-independent fields are the bulk of an answer (a hundred services are about 60 KiB) and
 * the same for every caller until the service changes, so each is serialized once per service object the reach
 * index hands out, and each granting policy's posture queries once per answer; only the rest is written per caller.
 * Every part is serialized by the route's own schema serializer (Fastify's `compileSerializationSchema`), so the
 * answer holds exactly what the declared schema lets through, as the detail route's does (a test compares them).
 */
import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { ClientService } from '../../services/authorization/client-services.js';
import type { PolicyPostureQueries, PostureQuery } from '../../services/posture/index.js';
import type { ListPage } from '../../services/list-page.js';
import { ListMeta } from '../schemas/common.js';
import { ClientServiceView, PostureQueryView } from '../schemas/service.js';
import { serviceView } from '../edge-management/config-service-views.js';

const { config: _config, permissions: _permissions, postureQueries: _postureQueries, ...sharedProperties } = ClientServiceView.properties;
/** The fields of a client's service view that do not depend on the caller. */
const SharedServiceFields = Type.Object(sharedProperties);

type Serialize = (value: unknown) => string;

/** The route's serializer for `schema` (Fastify compiles it once per route and keeps it). */
const serializerOf = (reply: FastifyReply, schema: TSchema): Serialize => reply.compileSerializationSchema(schema as unknown as Record<string, unknown>) as Serialize;

const sharedJson = new WeakMap<object, string>();
const queryJson = new WeakMap<PostureQuery, string>();
const permissionJson = new WeakMap<readonly string[], string>();

/** `{"id":…,…}` without its closing brace, kept per service object. */
function sharedPart(service: ClientService['service'], serialize: Serialize): string {
  let json = sharedJson.get(service);
  if (json === undefined) {
    json = serialize(serviceView(service));
    if (!json.endsWith('}') || json === '{}') throw new Error('a service view serialized to an unexpected shape');
    sharedJson.set(service, (json = json.slice(0, -1)));
  }
  return json;
}

/** `["Bind","Dial"]`: the client services hand out one array per combination, so its text is kept per array. */
function permissionsPart(permissions: readonly string[]): string {
  let json = permissionJson.get(permissions);
  if (json === undefined) permissionJson.set(permissions, (json = JSON.stringify(permissions)));
  return json;
}

/**
 * One granting policy's posture queries. An answer names about as many policies as services, but few checks (the
 * posture service hands every policy naming a check the same query object): each query is serialized once per
 * answer by its schema's serializer, and the policy around them, three plain fields, is written here.
 */
function policyPart(one: PolicyPostureQueries, serialize: Serialize, queryView: (query: PostureQuery) => object): string {
  const queries = one.postureQueries.map((query) => {
    let json = queryJson.get(query);
    if (json === undefined) queryJson.set(query, (json = serialize(queryView(query))));
    return json;
  });
  return `{"policyId":${JSON.stringify(one.policyId)},"policyType":${JSON.stringify(one.policyType)},"isPassing":${one.isPassing === true},"postureQueries":[${queries.join(',')}]}`;
}

/**
 * The JSON text of a page of client services in the list envelope. `queryView` turns a posture query into its wire
 * form (the same function the detail route uses).
 */
export function clientServiceListJson(page: ListPage<ClientService>, reply: FastifyReply, queryView: (query: PostureQuery) => object): string {
  const shared = serializerOf(reply, SharedServiceFields);
  const query = serializerOf(reply, PostureQueryView);
  const meta = serializerOf(reply, ListMeta);
  // One join over every piece: the answer is built once, flat, rather than as nested concatenations.
  const parts: string[] = ['{"data":['];
  page.items.forEach(({ service, permissions, config, postureQueries }, index) => {
    if (index > 0) parts.push(',');
    // permissions are Bind/Dial and config is free-form data: JSON.stringify writes them as the schema would.
    parts.push(sharedPart(service, shared), ',"config":', Object.keys(config).length === 0 ? '{}' : JSON.stringify(config), ',"permissions":', permissionsPart(permissions), ',"postureQueries":[');
    postureQueries.forEach((one, at) => parts.push(at > 0 ? ',' : '', policyPart(one, query, queryView)));
    parts.push(']}');
  });
  parts.push('],"meta":', meta({ pagination: page.pagination, filterableFields: page.filterableFields }), '}');
  return parts.join('');
}
