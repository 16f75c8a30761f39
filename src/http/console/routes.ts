/**
 * Serves the web console (decision 0079) under /console/ on a listener that hosts the Management API: the files
 * `scripts/build-console.mjs` wrote to dist/console/, read once at start. Hashed assets are immutable; every other
 * /console/ path answers index.html, so the console's own routes survive a reload. The console is a client of the
 * public API like any other: nothing here knows of identities or policies.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PAGE_SECURITY_HEADERS } from './content-security-policy.js';

/** dist/console/ of the checkout or package: the same three levels up from src/http/console/ and dist/http/console/. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
};

interface ConsoleFiles {
  index: Buffer;
  assets: Map<string, { body: Buffer; type: string }>;
}

function loadFiles(dir: string): ConsoleFiles | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      assets.set(name, { body: readFileSync(join(assetDir, name)), type: TYPES[extname(name)] ?? 'application/octet-stream' });
    }
  }
  return { index: readFileSync(indexPath), assets };
}

const NOT_BUILT = 'The console is not built in this installation: run `npm run build` (npm ci does it) and restart the controller.';

export function registerConsole(app: FastifyInstance, dir = CONSOLE_DIR): void {
  const files = loadFiles(dir);
  const page = (reply: FastifyReply) => {
    reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-cache');
    if (!files) return reply.code(404).type('text/plain; charset=utf-8').send(NOT_BUILT);
    return reply.type('text/html; charset=utf-8').send(files.index);
  };
  app.get('/console', (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', (_request, reply) => page(reply));
  app.get<{ Params: { name: string } }>('/console/assets/:name', (request, reply) => {
    const asset = files?.assets.get(request.params.name);
    reply.headers(PAGE_SECURITY_HEADERS);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send(`No console asset is named '${request.params.name}'.`);
    return reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  });
  app.get('/console/*', (_request, reply) => page(reply));
}
