/**
 * JSON Schema for config types (issue 14; reference facts A1): whether an administrator's schema is one a config
 * can be checked against, and the check itself. Schemas are draft-07, what the reference's own types declare.
 *
 * One Ajv instance serves every schema. It keeps nothing it compiled (`addUsedSchema: false`, and each schema is
 * removed from its cache after compiling), so two types may use the same `$id` and a deleted type leaves nothing
 * behind; the validators themselves are kept here, a bounded number, keyed by the schema's text.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { JsonObject } from '../../domain/config.js';

// ajv-formats is CommonJS: its plugin is the module itself or its `default`, depending on how it was loaded.
type FormatsPlugin = (instance: Ajv) => Ajv;
const addFormats = ((formatsPlugin as unknown as { default?: FormatsPlugin }).default ?? formatsPlugin) as unknown as FormatsPlugin;

// Not strict: the JSON Schema standard lets a schema carry keywords it does not define (`x-…`, `examples`), and
// unknown formats are ignored rather than refused, as validators commonly do.
const ajv = new Ajv({ strict: false, allErrors: false, addUsedSchema: false, logger: false });
addFormats(ajv);

/** Compiled validators by schema text; the oldest goes first past the bound. */
const validators = new Map<string, ValidateFunction>();
const MAX_CACHED = 256;

/** Where a schema or a value breaks a rule: a JSON Pointer into it (`''` for the root) and why. */
export interface SchemaProblem {
  path: string;
  reason: string;
}

/** Why `schema` cannot be a config type's schema, or undefined: its root must be `type: object` and it must compile. */
export function configSchemaProblem(schema: JsonObject): SchemaProblem | undefined {
  if (schema.type !== 'object') return { path: '/type', reason: "must be 'object': a config's data is a JSON object" };
  try {
    if (!ajv.validateSchema(schema)) {
      const first = ajv.errors?.[0];
      return { path: first?.instancePath ?? '', reason: `is not a valid JSON Schema: ${first?.message ?? 'unknown problem'}` };
    }
    validatorOf(schema);
  } catch (error) {
    // An unknown `$schema`, unresolvable references, bad regular expressions: what only compiling finds.
    return { path: '', reason: `is not a usable JSON Schema: ${(error as Error).message}` };
  }
  return undefined;
}

/** The first place `data` breaks `schema` (a schema configSchemaProblem accepts), or undefined when it conforms. */
export function dataProblem(schema: JsonObject, data: unknown): SchemaProblem | undefined {
  const validate = validatorOf(schema);
  if (validate(data)) return undefined;
  const first = validate.errors?.[0];
  return { path: first?.instancePath ?? '', reason: first?.message ?? 'does not match the schema' };
}

/**
 * A JSON Pointer as the dotted path the API's field errors use, under `field`: `/portRanges/0/low` under `data` is
 * `data.portRanges[0].low`.
 */
export function fieldPath(field: string, pointer: string): string {
  if (pointer === '') return field;
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, token) => (/^\d+$/.test(token) ? `${path}[${token}]` : `${path}.${token}`), field);
}

function validatorOf(schema: JsonObject): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = validators.get(key);
  if (cached) return cached;
  const validate = ajv.compile(schema);
  ajv.removeSchema(schema);
  validators.set(key, validate);
  if (validators.size > MAX_CACHED) validators.delete(validators.keys().next().value as string);
  return validate;
}
