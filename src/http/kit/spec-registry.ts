/**
 * The served API specifications as a route sees them (the informational "specs" operations). Declared apart from
 * `specs.ts`, which builds them from route tables, so that `api-context.ts` -> here stays free of `route.ts`: the
 * kit's imports run one way (route -> api-context -> spec-registry; specs and openapi -> route), with no circle.
 */

export interface SpecEntry {
  id: string;
  name: string;
  document: Record<string, unknown>;
  createdAt: Date;
}

export type SpecRegistry = ReadonlyMap<string, SpecEntry>;
