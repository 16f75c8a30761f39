/**
 * What the edge commands can do under one entity of a resource, read from the Management API's OpenAPI document:
 * its related lists (`GET /identities/{id}/services`) and its actions (`POST /identities/{id}/disable`,
 * `GET /cas/{id}/jwt`, `DELETE /identities/{id}/mfa`).
 */
import type { ActionSpec, RelationSpec } from './catalogue.js';
import { answerSchemaOf, columnsOf, fieldsOf, jsonSchemaOf, queryFieldsOf, schemaHasJwt, type Schema } from './openapi-schema.js';

/** The action of one operation under an entity of `resource` (`rest`: the path after `{id}/`). */
function actionOf(resource: { plural: string; enrolls: boolean }, path: string, rest: string, method: string, op: Schema): ActionSpec {
  const literal = rest.split('/').filter((segment) => !segment.startsWith('{'));
  // POST names a verb (disable, verify, re-enroll) and GET a document (jwt); DELETE removes the thing named.
  const verb = method === 'DELETE' ? 'delete-' : method === 'PUT' || method === 'PATCH' ? 'update-' : '';
  const name = `${verb}${literal.join('-')}`;
  const content = (op.requestBody?.content ?? {}) as Record<string, Schema>;
  const types = Object.keys(content);
  const textType = types.includes('application/json') ? undefined : types.find((t) => t.startsWith('text/') || t.startsWith('application/x-'));
  const answer = answerSchemaOf(op);
  const data = answer?.properties?.data;
  const kind: ActionSpec['answer'] = !data ? 'text' : data.type === 'object' && Object.keys(data.properties ?? {}).length === 0 ? 'none' : 'document';
  const writes: ActionSpec['writes'] =
    kind === 'text' ? 'answer' : kind === 'document' && schemaHasJwt(data) ? 'answer-jwt' : kind === 'none' && resource.enrolls && name.includes('enroll') ? 'entity-jwt' : undefined;
  return {
    name,
    summary: String(op.summary ?? ''),
    path,
    method,
    fields: fieldsOf(jsonSchemaOf(content)),
    params: [...rest.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string),
    query: queryFieldsOf(op),
    jsonBody: types.includes('application/json'),
    ...(textType
      ? { textBody: { contentType: types.includes('application/x-pem-file') ? 'application/x-pem-file' : textType, pem: types.some((t) => t.includes('pem')), required: op.requestBody?.required === true } }
      : {}),
    answer: kind,
    ...(writes ? { writes } : {}),
  };
}

/**
 * The related lists and actions under the entities of `plural`: every path `/{plural}/{id}/…`. A GET answering a
 * list at one segment below is a related list; every other operation is an action.
 */
export function itemOperationsOf(paths: Record<string, Record<string, Schema>>, resource: { plural: string; enrolls: boolean }) {
  const relations: RelationSpec[] = [];
  const actions = new Map<string, ActionSpec>();
  const prefix = `/${resource.plural}/{id}/`;
  for (const [path, operations] of Object.entries(paths)) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    for (const [lower, op] of Object.entries(operations)) {
      const method = lower.toUpperCase();
      if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) continue;
      const listed = answerSchemaOf(op)?.properties?.data;
      if (method === 'GET' && listed?.type === 'array') {
        if (!/^[a-z][a-z0-9-]*$/.test(rest)) continue;
        const created = jsonSchemaOf(paths[`/${rest}`]?.post?.requestBody?.content);
        relations.push({ name: rest, summary: String(op.summary ?? ''), path, query: queryFieldsOf(op), columns: columnsOf(listed.items, created) });
        continue;
      }
      const action = actionOf(resource, path, rest, method, op);
      // Two operations could share a name: the second gets its method in front.
      const name = actions.has(action.name) ? `${lower}-${action.name}` : action.name;
      actions.set(name, { ...action, name });
    }
  }
  return { relations: relations.sort((a, b) => a.name.localeCompare(b.name)), actions: [...actions.values()] };
}
