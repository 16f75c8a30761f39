/**
 * Config types and configs (issue 14; reference facts A1): a config type names a kind of settings and holds the
 * JSON Schema its configs must satisfy; a config is one set of those settings that services carry (at most one
 * config of a type per service). Tunnelers and SDKs ask for configs by their type's name, e.g. `intercept.v1`.
 */
export type Tags = Record<string, string | boolean | null>;

/** A JSON object as parsed from a request or the store. */
export type JsonObject = Record<string, unknown>;

export interface ConfigType {
  id: string;
  name: string;
  /** A JSON Schema (draft-07) whose root is `type: object`. */
  schema: JsonObject;
  tags: Tags;
  createdAt: Date;
  updatedAt: Date;
}

export interface Config {
  id: string;
  name: string;
  /** Fixed at create: the reference's configUpdate and configPatch have no `configTypeId`. */
  configTypeId: string;
  /** Valid against its type's schema when written. */
  data: JsonObject;
  tags: Tags;
  createdAt: Date;
  updatedAt: Date;
}

/** A config with the name of its type, as the detail's `configType` reference shows it. */
export interface ConfigWithType extends Config {
  configTypeName: string;
}
