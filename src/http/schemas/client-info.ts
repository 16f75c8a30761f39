/**
 * What a client says about itself at login: `sdkInfo`, `envInfo` and `configTypes` (reference `authenticate` body).
 * One set of rules for every login that carries them, the legacy `authenticate` body and the OIDC login bodies
 * (oidc/login-body.ts), so a value refused by one is refused by the other; the identity's detail shows the two
 * objects back with the same schemas.
 *
 * Limits (docs/guides/apis.md, Client info at login): the info objects are flat, string, number or boolean values, at most 16 properties
 * with names of at most 64 characters (letter first, then letters, digits, `_`, `.`, `-`) and strings of at most
 * 255 characters (the reference's `hostname` and `domain`: 253). The reference's fields are strings; other names are
 * accepted so that newer SDKs can say more without being refused. `configTypes`: at most 100 names or ids of 1 to 255
 * characters. So an info object stays under ~5 KB on the identity and the config types under ~26 KB on a session.
 */
import { Type } from 'typebox';

export const MAX_INFO_PROPERTIES = 16;
export const MAX_INFO_TEXT = 255;
export const MAX_CONFIG_TYPES = 100;

const Text = (maxLength: number) => Type.String({ maxLength });
const InfoValue = Type.Union([Text(MAX_INFO_TEXT), Type.Number(), Type.Boolean()], { description: 'a string, number or boolean; no nested objects or arrays' });
const infoOptions = (description: string) => ({
  additionalProperties: InfoValue,
  maxProperties: MAX_INFO_PROPERTIES,
  propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,63}$' },
  description,
});

/** The SDK and application a client runs (reference `sdkInfo`). */
export const SdkInfo = Type.Object(
  {
    appId: Type.Optional(Text(255)),
    appVersion: Type.Optional(Text(255)),
    branch: Type.Optional(Text(255)),
    revision: Type.Optional(Text(255)),
    type: Type.Optional(Text(255)),
    version: Type.Optional(Text(255)),
  },
  infoOptions('the SDK and application of the client; recorded on the identity at login'),
);

/** The machine a client runs on (reference `envInfo`). */
export const EnvInfo = Type.Object(
  {
    arch: Type.Optional(Text(255)),
    os: Type.Optional(Text(255)),
    osRelease: Type.Optional(Text(255)),
    osVersion: Type.Optional(Text(255)),
    domain: Type.Optional(Text(253)),
    hostname: Type.Optional(Text(253)),
  },
  infoOptions('the machine of the client; recorded on the identity at login'),
);

/** Config types wanted with services (reference `configTypes`): names or ids, shown on the API session. */
export const ConfigTypes = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  maxItems: MAX_CONFIG_TYPES,
  description: 'config type names or ids the client wants with its services',
});

/** The three optional login fields, for a body schema to spread in. */
export const clientInfoFields = {
  sdkInfo: Type.Optional(SdkInfo),
  envInfo: Type.Optional(EnvInfo),
  configTypes: Type.Optional(ConfigTypes),
};
