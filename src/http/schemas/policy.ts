/**
 * Wire schemas of the three kinds of policy (reference servicePolicyCreate/Detail/Update/Patch and the edge router
 * and service edge router counterparts), the neutral item of the related lists, and the policy advice.
 * Role lists are plain string arrays here: the service checks each role and names the offending index
 * (`identityRoles[2]`), which a schema error could not say as plainly. The semantic is optional (`AllOf` when absent,
 * as reference facts A1 give the default), though the reference marks it required.
 */
import { Type, type TObject, type TProperties } from 'typebox';
import { DateTime, Links, ListQueryParams } from './common.js';
import { EntityRef, Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: 255 });
const Roles = Type.Array(Type.String(), { description: "role expressions: '#attribute', '@id' or '#all' (alone)" });
const Semantic = Type.Union([Type.Literal('AllOf'), Type.Literal('AnyOf')], { description: 'how attribute roles combine (default AllOf)' });
const DialBind = Type.Union([Type.Literal('Dial'), Type.Literal('Bind')]);
const NamedRoles = Type.Array(Type.Object({ role: Type.String(), name: Type.String() }));

/** The body of create and PUT (`required` names what a whole policy must give), and of PATCH (everything optional). */
function bodies<P extends TProperties>(properties: P, required: (keyof P & string)[]): { whole: TObject; patch: TObject } {
  const whole = Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, required.includes(key) ? schema : Type.Optional(schema)]));
  const patch = Object.fromEntries(Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]));
  return { whole: Type.Object(whole, closed), patch: Type.Object(patch, closed) };
}

const common = { id: Type.String(), name: Type.String(), semantic: Semantic, tags: Tags, createdAt: DateTime, updatedAt: DateTime, _links: Links };

const servicePolicy = bodies(
  { name: Name, type: DialBind, semantic: Semantic, identityRoles: Roles, serviceRoles: Roles, postureCheckRoles: Roles, tags: Tags },
  ['name', 'type'],
);
export const ServicePolicyBody = servicePolicy.whole;
export const ServicePolicyPatchBody = servicePolicy.patch;
export const ServicePolicyDetail = Type.Object({
  ...common,
  type: DialBind,
  identityRoles: Roles,
  identityRolesDisplay: NamedRoles,
  serviceRoles: Roles,
  serviceRolesDisplay: NamedRoles,
  postureCheckRoles: Roles,
  postureCheckRolesDisplay: NamedRoles,
});

const edgeRouterPolicy = bodies({ name: Name, semantic: Semantic, identityRoles: Roles, edgeRouterRoles: Roles, tags: Tags }, ['name']);
export const EdgeRouterPolicyBody = edgeRouterPolicy.whole;
export const EdgeRouterPolicyPatchBody = edgeRouterPolicy.patch;
export const EdgeRouterPolicyDetail = Type.Object({
  ...common,
  isSystem: Type.Boolean(),
  identityRoles: Roles,
  identityRolesDisplay: NamedRoles,
  edgeRouterRoles: Roles,
  edgeRouterRolesDisplay: NamedRoles,
});

const serviceEdgeRouterPolicy = bodies({ name: Name, semantic: Semantic, serviceRoles: Roles, edgeRouterRoles: Roles, tags: Tags }, ['name']);
export const ServiceEdgeRouterPolicyBody = serviceEdgeRouterPolicy.whole;
export const ServiceEdgeRouterPolicyPatchBody = serviceEdgeRouterPolicy.patch;
export const ServiceEdgeRouterPolicyDetail = Type.Object({
  ...common,
  serviceRoles: Roles,
  serviceRolesDisplay: NamedRoles,
  edgeRouterRoles: Roles,
  edgeRouterRolesDisplay: NamedRoles,
});

/** An identity, service, edge router or posture check in a related list (the resources' own views replace it). */
export const RelatedEntity = Type.Object({
  id: Type.String(),
  name: Type.String(),
  roleAttributes: Type.Array(Type.String()),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/** `policyType` of the identity↔service lists (reference listIdentityServices, listServiceIdentities). */
export const PolicyTypeQuery = Type.Object({
  ...ListQueryParams.properties,
  policyType: Type.Optional(Type.Union([Type.Literal('dial'), Type.Literal('bind')])),
});

export const PolicyAdviceParams = Type.Object({ id: Type.String({ minLength: 1 }), serviceId: Type.String({ minLength: 1 }) });

/** Reference `policyAdvice`, with our `commonRouterCount` and plain-words `reasons`. */
export const PolicyAdviceView = Type.Object({
  identityId: Type.String(),
  identity: EntityRef,
  serviceId: Type.String(),
  service: EntityRef,
  isDialAllowed: Type.Boolean(),
  isBindAllowed: Type.Boolean(),
  identityRouterCount: Type.Integer(),
  serviceRouterCount: Type.Integer(),
  commonRouterCount: Type.Integer({ description: 'every router both may use; commonRouters lists at most 500 of them' }),
  commonRouters: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), entity: Type.String(), _links: Links, isOnline: Type.Boolean() })),
  reasons: Type.Array(Type.String(), { description: 'why access is or is not possible, naming the policies, posture checks and routers involved' }),
});
