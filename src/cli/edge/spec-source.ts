/**
 * Where the resource commands get the Management API document from: the one the logged-in controller served at
 * login (so the commands match that controller, whatever its version), else the one this build's own route table
 * generates (help and completion before any login). Both come from the same route table and schemas.
 */
import { readSavedSpec } from './config-store.js';

export interface ManagementDocument {
  document: Record<string, any>;
  /** `login` when the controller's own, `built-in` when generated from this build's route table. */
  source: 'login' | 'built-in';
}

/** The document to build the resource commands from; the route table is loaded only when no login saved one. */
export async function managementDocument(): Promise<ManagementDocument> {
  const saved = readSavedSpec();
  if (saved?.paths) return { document: saved, source: 'login' };
  const { EDGE_MANAGEMENT_PREFIX, edgeManagementRoutes } = await import('../../http/edge-management/routes.js');
  const { buildOpenApiDocument } = await import('../../http/kit/openapi.js');
  const document = buildOpenApiDocument({
    title: 'svc Edge Management API',
    version: 'built-in',
    prefix: EDGE_MANAGEMENT_PREFIX,
    serverUrls: [],
    routes: edgeManagementRoutes,
  });
  return { document, source: 'built-in' };
}
