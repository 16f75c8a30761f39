/**
 * Serves the web console (decision 0079) under /console/ on a listener that hosts the Management API: the files
 * `scripts/build-console.mjs` wrote to dist/console/, read once at start. Hashed assets are immutable; every other
 * /console/ path answers index.html, so the console's own routes survive a reload. The console is a client of the
 * public API like any other: nothing here knows of identities or policies.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/**
 * A file as sent: the bytes, and the brotli and gzip forms the build wrote beside it (FILE.br, FILE.gz) for browsers
 * that accept them. Nothing is compressed here: at brotli's best quality that took seconds of CPU at every start.
 */
interface Encoded {
  body: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  type: string;
}

interface ConsoleFiles {
  index: Encoded;
  assets: Map<string, Encoded>;
}

/** The precompressed forms the build writes beside a file: not console assets of their own. */
const PRECOMPRESSED = /\.(br|gz)$/;

/** `path` with the forms the build precompressed, when they are there (a build without them is served as is). */
function encoded(path: string, type: string): Encoded {
  const sibling = (suffix: string) => (existsSync(`${path}${suffix}`) ? readFileSync(`${path}${suffix}`) : undefined);
  return { body: readFileSync(path), br: sibling('.br'), gzip: sibling('.gz'), type };
}

/** Sends `file` in the best encoding the request accepts. */
function send(request: FastifyRequest, reply: FastifyReply, file: Encoded) {
  const accepted = String(request.headers['accept-encoding'] ?? '');
  reply.header('vary', 'accept-encoding').type(file.type);
  if (file.br && /\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(file.br);
  if (file.gzip && /\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}

function loadFiles(dir: string): ConsoleFiles | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assets = new Map<string, Encoded>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      if (PRECOMPRESSED.test(name)) continue;
      assets.set(name, encoded(join(assetDir, name), TYPES[extname(name)] ?? 'application/octet-stream'));
    }
  }
  return { index: encoded(indexPath, 'text/html; charset=utf-8'), assets };
}

const NOT_BUILT = 'The console is not built in this installation: run `npm run build` (npm ci does it) and restart the controller.';

export function registerConsole(app: FastifyInstance, dir = CONSOLE_DIR): void {
  const files = loadFiles(dir);
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', 'no-cache');
    if (!files) return reply.code(404).type('text/plain; charset=utf-8').send(NOT_BUILT);
    return send(request, reply, files.index);
  };
  app.get('/console', (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', page);
  app.get<{ Params: { name: string } }>('/console/assets/:name', (request, reply) => {
    const asset = files?.assets.get(request.params.name);
    reply.headers(PAGE_SECURITY_HEADERS);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send(`No console asset is named '${request.params.name}'.`);
    return send(request, reply.header('cache-control', 'public, max-age=31536000, immutable'), asset);
  });
  app.get('/console/*', page);
}
