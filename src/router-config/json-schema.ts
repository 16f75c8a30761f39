/**
 * The router file's JSON Schema for editors (YAML language servers): generated from the same TypeBox
 * schema the validator checks with, so the two cannot drift.
 */
import { RouterFileSchema } from './schema.js';

/**
 * A plain JSON Schema (draft-07) document of the router configuration file.
 *
 * @example writeFileSync('router.schema.json', JSON.stringify(routerJsonSchema(), null, 2));
 */
export function routerJsonSchema(): Record<string, unknown> {
  // A JSON round trip keeps exactly the JSON Schema keywords (TypeBox's markers are not enumerable JSON).
  const body = JSON.parse(JSON.stringify(RouterFileSchema)) as Record<string, unknown>;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://svc.invalid/schemas/router-config.json',
    title: 'svc router configuration file (v: 3)',
    ...body,
  };
}
