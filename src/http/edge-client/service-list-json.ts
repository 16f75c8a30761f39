/**
 * The client API's `GET /services` answer written as JSON from parts kept between answers (issue 15, latency at
 * size). A service's caller-independent fields are the bulk of an answer (a hundred services are about 60 KiB) and
 * the same for every caller until the service changes, so each is serialized once per service object the reach
 * index hands out, and each granting policy's posture queries once per answer (the view of them is kept per object
 * by `postureView`, so the same view comes back for every service that policy grants); only the rest is written per
 * caller.
 * Every part is serialized by the route's own schema serializer (Fastify's `compileSerializationSchema`), so the
 * answer holds exactly what the declared schema lets through, as the detail route's does (a test compares them).
 */
import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { ClientService } from '../../services/authorization/client-services.js';
import type { PolicyPostureQueries } from '../../services/posture/index.js';
import type { ListPage } from '../../services/list-page.js';
import { ListMeta } from '../schemas/common.js';
import { ClientServiceView, PolicyPostureQueriesView } from '../schemas/service.js';
import { serviceView } from '../edge-management/config-service-views.js';
import { listEnvelope } from '../kit/envelope.js';

const { config: _config, permissions: _permissions, postureQueries: _postureQueries, ...sharedProperties } = ClientServiceView.properties;
/** The fields of a client's service view that do not depend on the caller. */
const SharedServiceFields = Type.Object(sharedProperties);

type Serialize = (value: unknown) => string;

/** The route's serializer for `schema` (Fastify compiles it once per route and keeps it). */
const serializerOf = (reply: FastifyReply, schema: TSchema): Serialize => reply.compileSerializationSchema(schema as unknown as Record<string, unknown>) as Serialize;

const sharedJson = new WeakMap<object, string>();
const policyJson = new WeakMap<object, string>();

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

function postureQueriesPart(policies: readonly object[], serialize: Serialize): string {
  const parts = policies.map((policy) => {
    let json = policyJson.get(policy);
    if (json === undefined) policyJson.set(policy, (json = serialize(policy)));
    return json;
  });
  return `[${parts.join(',')}]`;
}

/**
 * The JSON text of a page of client services in the list envelope. `postureView` turns the posture service's
 * objects into their wire form (the same function the detail route uses), kept per object by the caller.
 */
export function clientServiceListJson(
  page: ListPage<ClientService>,
  reply: FastifyReply,
  postureView: (policy: PolicyPostureQueries) => object,
): string {
  const shared = serializerOf(reply, SharedServiceFields);
  const policy = serializerOf(reply, PolicyPostureQueriesView);
  const meta = serializerOf(reply, ListMeta);
  const items = page.items.map(({ service, permissions, config, postureQueries }) => {
    // permissions are Bind/Dial and config is free-form data: JSON.stringify writes them as the schema would.
    return `${sharedPart(service, shared)},"config":${JSON.stringify(config)},"permissions":${JSON.stringify(permissions)},"postureQueries":${postureQueriesPart(postureQueries.map(postureView), policy)}}`;
  });
  const { meta: metaValue } = listEnvelope([], page.pagination, page.filterableFields);
  return `{"data":[${items.join(',')}],"meta":${meta(metaValue)}}`;
}
