/**
 * Builders for controller config tests: a valid file as three replaceable YAML blocks, and a loader that
 * resolves relative paths against test/fixtures/config (where dummy PEM files live). Builders return
 * values and never assert.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { loadControllerConfigFromText } from '../../src/config/load.js';
import type { LoadResult } from '../../src/config/load.js';
import { formatDiagnostic } from '../../src/shared/diagnostics.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/config/', import.meta.url));
/** The name text loads pretend to come from; it does not exist, only its folder matters. */
export const CONFIG_FILE = join(FIXTURES, 'ctrl.yml');

/** Lines 1-7. */
export const HEAD = `v: 3
db: ./data/ctrl.db
identity:
  cert: pki/ctrl.cert.pem
  server_cert: pki/ctrl.server.chain.pem
  key: pki/ctrl.key.pem
  ca: pki/ca.bundle.pem
`;

/** Lines 8-14 when HEAD comes first. */
export const EDGE = `edge:
  api:
    address: ctrl.example.com:1280
  enrollment:
    signingCert:
      cert: pki/signing.cert.pem
      key: pki/signing.key.pem
`;

/** One listener hosting edge-client and edge-management at the edge.api.address; lines 15-22 after HEAD and EDGE. */
export const WEB = `web:
  - name: client
    bindPoints:
      - interface: 0.0.0.0:1280
        address: ctrl.example.com:1280
    apis:
      - binding: edge-client
      - binding: edge-management
`;

/** A whole file from its blocks; pass a block to replace the default one, `''` to leave it out. */
export function controllerYaml(blocks: { head?: string; edge?: string; web?: string } = {}): string {
  return `${blocks.head ?? HEAD}${blocks.edge ?? EDGE}${blocks.web ?? WEB}`;
}

/** Loads text as if read from CONFIG_FILE, with only the given environment. */
export function loadText(text: string, env: Record<string, string | undefined> = {}): Promise<LoadResult> {
  return loadControllerConfigFromText(text, CONFIG_FILE, { env });
}

/** The diagnostics as printed lines. */
export function printed(result: LoadResult): string[] {
  return result.diagnostics.map((d) => formatDiagnostic(d));
}

/** 1-based line of the first line of `text` containing `marker` (0 when absent). */
export function lineOf(text: string, marker: string): number {
  return text.split('\n').findIndex((line) => line.includes(marker)) + 1;
}
