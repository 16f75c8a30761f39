/**
 * Wire schemas of terminator management (reference terminatorCreate/Update/Patch/Detail): create sets the
 * instance `identity` and its secret, PUT and PATCH do not; the view names the service and router and never
 * carries the secret.
 */
import { Type } from 'typebox';
import { TERMINATOR_PRECEDENCES } from '../../domain/terminator.js';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Id = Type.String({ minLength: 1, maxLength: 255 });
const Cost = Type.Integer({ minimum: 0, maximum: 65_535, description: 'cost, 0..65535' });
const Precedence = Type.Union(TERMINATOR_PRECEDENCES.map((p) => Type.Literal(p)));

const updateFields = {
  service: Id,
  router: Id,
  binding: Type.String({ minLength: 1, maxLength: 255 }),
  address: Type.String({ minLength: 1, maxLength: 4096 }),
  cost: Type.Optional(Cost),
  precedence: Type.Optional(Precedence),
  tags: Type.Optional(Tags),
};

/** Create: the whole terminator, with the hosting instance's id and base64 secret when an SDK would give them. */
export const TerminatorCreateBody = Type.Object(
  {
    ...updateFields,
    identity: Type.Optional(Type.String({ maxLength: 255 })),
    identitySecret: Type.Optional(Type.String({ maxLength: 4096, pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'base64' })),
  },
  closed,
);

/** PUT: the whole terminator but its instance identity. */
export const TerminatorUpdateBody = Type.Object(updateFields, closed);

/** PATCH: any subset of PUT's fields. */
export const TerminatorPatchBody = Type.Partial(Type.Object(updateFields), closed);

const EntityRef = Type.Object({ id: Type.String(), name: Type.String(), entity: Type.String(), _links: Links });

/** A terminator as sent (terminatorDetail). */
export const TerminatorView = Type.Object({
  id: Type.String(),
  serviceId: Type.String(),
  service: EntityRef,
  routerId: Type.String(),
  router: EntityRef,
  binding: Type.String(),
  address: Type.String(),
  identity: Type.String(),
  cost: Type.Integer(),
  dynamicCost: Type.Integer(),
  precedence: Type.String(),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
