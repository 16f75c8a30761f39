/**
 * Wire schemas of posture check management (reference postureCheck*Create/Update/Patch/Detail, one per type): one
 * body with every type's fields optional, as the reference's `typeId` discriminator allows; which of them a type
 * requires or refuses is the service's rule (posture-check-input.ts), so each refusal names its field.
 */
import { Type } from 'typebox';
import { OS_TYPES, POSTURE_CHECK_TYPE_IDS } from '../../domain/posture-check.js';
import { DateTime, Links } from './common.js';
import { Tags } from './identity.js';

const closed = { additionalProperties: false } as const;
const Name = Type.String({ minLength: 1, maxLength: 255 });
const RoleAttributes = Type.Array(Type.String({ maxLength: 255 }), { maxItems: 256 });
const TypeId = Type.Union(POSTURE_CHECK_TYPE_IDS.map((id) => Type.Literal(id)));
const OsType = Type.Union(OS_TYPES.map((os) => Type.Literal(os)));
const Semantic = Type.Union([Type.Literal('AllOf'), Type.Literal('AnyOf')]);
const Text = Type.String({ maxLength: 1024 });
const List = (maxItems = 256) => Type.Array(Text, { maxItems });

const OperatingSystem = Type.Object({ type: OsType, versions: Type.Optional(List(64)) }, closed);
const Process = Type.Object({ osType: OsType, path: Text, hashes: Type.Optional(List()), signerFingerprint: Type.Optional(Text) }, closed);
const ProcessMulti = Type.Object({ osType: OsType, path: Text, hashes: Type.Optional(List()), signerFingerprints: Type.Optional(List()) }, closed);

/** Every type's own fields; MFA's may be null in a PATCH (reference postureCheckMfaPropertiesPatch). */
const typeFields = {
  operatingSystems: Type.Optional(Type.Array(OperatingSystem, { maxItems: 64 })),
  macAddresses: Type.Optional(List()),
  domains: Type.Optional(List()),
  process: Type.Optional(Process),
  semantic: Type.Optional(Semantic),
  processes: Type.Optional(Type.Array(ProcessMulti, { maxItems: 256 })),
  timeoutSeconds: Type.Optional(Type.Union([Type.Integer({ minimum: -1, maximum: 2_147_483_647, description: 'seconds; -1 or 0 = no timeout' }), Type.Null()])),
  promptOnWake: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  promptOnUnlock: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  ignoreLegacyEndpoints: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
};
const common = { roleAttributes: Type.Optional(RoleAttributes), tags: Type.Optional(Tags) };

/** Create and PUT: the whole check, its type named. */
export const PostureCheckBody = Type.Object({ name: Name, typeId: TypeId, ...common, ...typeFields }, closed);

/** PATCH: any subset; `typeId`, when given, must be the check's own. */
export const PostureCheckPatchBody = Type.Object({ name: Type.Optional(Name), typeId: Type.Optional(TypeId), ...common, ...typeFields }, closed);

const OperatingSystemView = Type.Object({ type: Type.String(), versions: Type.Array(Type.String()) });

/** A check as sent (postureCheckDetail and the fields of its type). */
export const PostureCheckView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  typeId: Type.String(),
  roleAttributes: Type.Array(Type.String()),
  version: Type.Integer(),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
  operatingSystems: Type.Optional(Type.Array(OperatingSystemView)),
  macAddresses: Type.Optional(Type.Array(Type.String())),
  domains: Type.Optional(Type.Array(Type.String())),
  process: Type.Optional(Type.Object({ osType: Type.String(), path: Type.String(), hashes: Type.Array(Type.String()), signerFingerprint: Type.Optional(Type.String()) })),
  semantic: Type.Optional(Type.String()),
  processes: Type.Optional(
    Type.Array(Type.Object({ osType: Type.String(), path: Type.String(), hashes: Type.Array(Type.String()), signerFingerprints: Type.Array(Type.String()) })),
  ),
  timeoutSeconds: Type.Optional(Type.Integer()),
  promptOnWake: Type.Optional(Type.Boolean()),
  promptOnUnlock: Type.Optional(Type.Boolean()),
  ignoreLegacyEndpoints: Type.Optional(Type.Boolean()),
});

/** A built-in check type as sent (postureCheckTypeDetail). */
export const PostureCheckTypeView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  operatingSystems: Type.Array(OperatingSystemView),
  version: Type.String(),
  tags: Tags,
  createdAt: DateTime,
  updatedAt: DateTime,
  _links: Links,
});
