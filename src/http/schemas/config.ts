/**
 * Wire schemas of config types and configs (reference configTypeCreate/Update/Patch/Detail, configCreate/Update/
 * Patch/Detail). A schema and a config's data are JSON objects of any shape here: the service judges them (a schema
 * must be a JSON Schema; data must satisfy its type's schema), so the answer names what is wrong inside them.
 */
import { Type } from 'typebox';
import { DateTime, Links } from './common.js';
import { EntityRef, Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: 255 });
const Id = Type.String({ minLength: 1, maxLength: 255 });
const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const SchemaField = AnyObject('A JSON Schema (draft-07) whose root is `type: object`; configs of the type must satisfy it');
const DataField = AnyObject("The config's settings, as its type's schema defines them");

/** Create and PUT of a config type; an absent schema accepts any object. */
export const ConfigTypeBody = Type.Object({ name: Name, schema: Type.Optional(SchemaField), tags: Type.Optional(Tags) }, closed);
export const ConfigTypePatchBody = Type.Partial(ConfigTypeBody, closed);

export const ConfigTypeView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  schema: SchemaField,
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});

/** Create: the type is required. */
export const ConfigCreateBody = Type.Object({ name: Name, configTypeId: Id, data: DataField, tags: Type.Optional(Tags) }, closed);
/** PUT: the type is fixed at create; it may be repeated, not changed. */
export const ConfigUpdateBody = Type.Object({ name: Name, configTypeId: Type.Optional(Id), data: DataField, tags: Type.Optional(Tags) }, closed);
export const ConfigPatchBody = Type.Partial(ConfigUpdateBody, closed);

export const ConfigView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  configTypeId: Type.String(),
  configType: EntityRef,
  data: DataField,
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
