/**
 * Serves the web console (decision 0079) under /console/ on a listener that hosts the Management API: the files
 * `scripts/build-console.mjs` wrote to dist/console/, read once at start. Hashed assets are immutable; every other
 * /console/ path answers index.html, so the console's own routes survive a reload. The console is a client of the
 * public API like any other: nothing here knows of identities or policies.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
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

/** A file as sent: the bytes, and the same compressed (once, at start) for browsers that accept it. */
interface Encoded {
  body: Buffer;
  br: Buffer;
  gzip: Buffer;
  type: string;
}

interface ConsoleFiles {
  index: Encoded;
  assets: Map<string, Encoded>;
}

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.map', '.svg', '.txt']);

function encoded(body: Buffer, type: string, compressible: boolean): Encoded {
  if (!compressible) return { body, br: body, gzip: body, type };
  return { body, br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }), gzip: gzipSync(body, { level: 9 }), type };
}

/** Sends `file` in the best encoding the request accepts. */
function send(request: FastifyRequest, reply: FastifyReply, file: Encoded) {
  const accepted = String(request.headers['accept-encoding'] ?? '');
  reply.header('vary', 'accept-encoding').type(file.type);
  if (file.br !== file.body && /\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(file.br);
  if (file.gzip !== file.body && /\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.body);
}

function loadFiles(dir: string): ConsoleFiles | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assets = new Map<string, Encoded>();
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const extension = extname(name);
      assets.set(name, encoded(readFileSync(join(assetDir, name)), TYPES[extension] ?? 'application/octet-stream', COMPRESSIBLE.has(extension)));
    }
  }
  return { index: encoded(readFileSync(indexPath), 'text/html; charset=utf-8', true), assets };
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
