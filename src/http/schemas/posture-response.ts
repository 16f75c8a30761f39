/**
 * Wire schemas of posture responses (reference `postureResponseCreate` and its subtypes, `postureResponseEnvelope`):
 * one object carries every type's fields, all optional beside `id` and `typeId`; the posture domain requires the
 * fields of the given type and refuses those of another (services/posture/response-input.ts). Bounds keep one
 * request small: at most 128 responses in a bulk, 64 MAC addresses and 16 signer fingerprints per response, and
 * strings of at most 255 characters (4096 for a process path).
 */
import { Type } from 'typebox';
import { MAX_BULK_RESPONSES, POSTURE_RESPONSE_TYPE_IDS } from '../../services/posture/index.js';

const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });

export const PostureResponseCreate = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 255, description: 'the posture check (query) id answered; any value for ENDPOINT_STATE' }),
    typeId: Type.Union(
      POSTURE_RESPONSE_TYPE_IDS.map((id) => Type.Literal(id)),
      { description: 'OS, MAC, DOMAIN, PROCESS, PROCESS_MULTI or ENDPOINT_STATE (MFA is answered by TOTP, not posted)' },
    ),
    type: Type.Optional(Text(255, 'OS: the operating system, e.g. Windows')),
    version: Type.Optional(Text(255, 'OS: its version, e.g. 10.0.19045')),
    build: Type.Optional(Text(255, 'OS: its build')),
    macAddresses: Type.Optional(Type.Array(Text(255), { maxItems: 64, description: 'MAC: the MAC addresses of the device' })),
    domain: Type.Optional(Text(255, 'DOMAIN: the Windows domain the device is joined to')),
    path: Type.Optional(Text(4096, 'PROCESS: the process path')),
    isRunning: Type.Optional(Type.Boolean({ description: 'PROCESS: whether the process runs' })),
    hash: Type.Optional(Text(255, 'PROCESS: the hash of the binary, hex')),
    signerFingerprints: Type.Optional(Type.Array(Text(255), { maxItems: 16, description: 'PROCESS: fingerprints of the signers of the binary, hex' })),
    woken: Type.Optional(Type.Boolean({ description: 'ENDPOINT_STATE: the device woke' })),
    unlocked: Type.Optional(Type.Boolean({ description: 'ENDPOINT_STATE: the device was unlocked' })),
  },
  { additionalProperties: false },
);

/** At least one response: an empty bulk reports nothing, and is most likely a client's mistake. */
export const PostureResponseBulk = Type.Array(PostureResponseCreate, { minItems: 1, maxItems: MAX_BULK_RESPONSES });

/** `{data: {services}, meta}`: the services whose MFA timers the submission changed. */
export const PostureResponseEnvelope = Type.Object({
  data: Type.Object({
    services: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        postureQueryType: Type.String(),
        timeout: Type.Integer(),
        timeoutRemaining: Type.Integer(),
      }),
    ),
  }),
  meta: Type.Object({}, { additionalProperties: true }),
});
