/**
 * `createContext`: an SDK context for one identity. It reads the identity (file or object), logs in (api-session.ts),
 * learns who it is and the controller's CA bundle (router certificates must chain to the identity's CAs or to that
 * bundle), and then dials and listens. Router channels are opened when first needed and kept; each refreshed API
 * session token goes to every one of them. `close()` ends listeners, connections, channels and the API session.
 */
import type { Logger } from 'pino';
import { openApiSession, type AuthMode } from './api-session.js';
import { clientApi, type SdkService, type ServiceListOptions } from './client-api.js';
import { controllerHttp } from './controller-http.js';
import { dial, type DialOptions, type DialSessions } from './dial.js';
import { sodiumReady } from './e2ee.js';
import { SdkError } from './errors.js';
import { loadIdentity, readIdentityFile, type LoadedIdentity, type SdkIdentityFile } from './identity-file.js';
import { listen, type ListenOptions, type SvcListener } from './listener.js';
import { routerLink, type RouterLink } from './router-link.js';
import type { Runtime } from './runtime.js';
import type { SvcConnection } from './connection.js';

export interface SdkOptions {
  /** The file `svc edge enroll` writes: `{ztAPI, ztAPIs, id: {key, cert, ca}}` with `pem:` or `file:` values. */
  identityFile?: string;
  /** Or the parsed object (relative `file:` paths then start at the working directory). */
  identity?: SdkIdentityFile;
  /** auto (default): OIDC when the controller offers it, legacy otherwise. */
  auth?: AuthMode;
  log?: Logger;
}

export interface SvcContext {
  readonly identity: { id: string; name: string };
  /** The services this identity may see, every page; `configTypes` asks for the configs of those types with them. */
  services(options?: ServiceListOptions): Promise<SdkService[]>;
  /**
   * When the identity's services last changed (`GET /current-api-session/service-updates`, an ISO date-time): poll
   * it and list the services again when it moves, as the public tunnelers do.
   */
  servicesChangedAt(): Promise<string>;
  dial(service: string, options?: DialOptions): Promise<SvcConnection>;
  listen(service: string, onConnection: (conn: SvcConnection) => void, options?: ListenOptions): Promise<SvcListener>;
  close(): Promise<void>;
}

/** How long a looked-up service is reused before it is read again. */
const SERVICE_CACHE_MS = 30_000;

function identityOf(options: SdkOptions): LoadedIdentity {
  if (options.identityFile !== undefined && options.identity !== undefined) throw new SdkError('BAD_IDENTITY', 'give identityFile or identity, not both');
  if (options.identityFile !== undefined) return readIdentityFile(options.identityFile);
  if (options.identity !== undefined) return loadIdentity(options.identity, 'object', process.cwd());
  throw new SdkError('BAD_IDENTITY', 'an SDK context needs identityFile (a path) or identity (the parsed file)');
}

/**
 * @example
 * const ctx = await createContext({ identityFile: 'client.json' });
 * const conn = await ctx.dial('echo');
 * conn.end('hello');
 * conn.on('data', (d) => console.log(String(d)));
 */
export async function createContext(options: SdkOptions): Promise<SvcContext> {
  const id = identityOf(options);
  await sodiumReady;
  const http = controllerHttp(id);
  const session = await openApiSession({ http, clientApi: id.clientApi, auth: options.auth ?? 'auto', ...(options.log ? { log: options.log } : {}) });
  const api = clientApi(http, id.clientApi, session);
  let me: { id: string; name: string };
  let caPem: string;
  try {
    me = await api.currentIdentity();
    caPem = [id.caPem, ...(await api.caBundle())].filter((p) => p !== '').join('\n');
  } catch (error) {
    await session.close();
    throw error;
  }
  const links = new Map<string, RouterLink>();
  const listeners = new Set<SvcListener>();
  const connections = new Set<SvcConnection>();
  const dialSessions: DialSessions = new Map();
  const services = new Map<string, { at: number; service: Promise<SdkService> }>();
  let connId = 0;
  let closed = false;
  const creds = { certPem: id.certPem, keyPem: id.keyPem, caPem, token: () => session.token };
  session.onToken((token) => {
    for (const link of links.values()) void link.updateToken(token);
  });

  const runtime: Runtime = {
    identity: me,
    api,
    ...(options.log ? { log: options.log } : {}),
    link(router) {
      let link = links.get(router.name);
      if (!link || link.url !== router.url) {
        link?.close();
        link = routerLink(router.name, router.url, creds, options.log);
        links.set(router.name, link);
      }
      return link;
    },
    nextConnId: () => connId++,
    async service(name, permission) {
      let cached = services.get(name);
      if (!cached || Date.now() - cached.at > SERVICE_CACHE_MS) {
        cached = { at: Date.now(), service: api.service(name) };
        services.set(name, cached);
        cached.service.catch(() => services.delete(name));
      }
      const service = await cached.service;
      if (!service.permissions.includes(permission)) {
        throw new SdkError('NOT_AUTHORIZED', `identity '${me.name}' may not ${permission.toLowerCase()} service '${name}' (its permissions: ${service.permissions.join(', ') || 'none'})`);
      }
      return service;
    },
    get closed() {
      return closed;
    },
  };

  const track = (conn: SvcConnection) => {
    connections.add(conn);
    conn.once('close', () => connections.delete(conn));
    return conn;
  };

  return {
    identity: me,
    services: (listOptions) => api.services(listOptions),
    servicesChangedAt: () => api.servicesChangedAt(),
    dial: async (name, dialOptions) => track(await dial(runtime, dialSessions, name, dialOptions)),
    async listen(name, onConnection, listenOptions) {
      const listener = await listen(runtime, name, (conn) => onConnection(track(conn)), listenOptions);
      listeners.add(listener);
      const close = listener.close.bind(listener);
      listener.close = async () => {
        listeners.delete(listener);
        await close();
      };
      return listener;
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...listeners].map((l) => l.close()));
      for (const conn of connections) conn.destroy();
      for (const link of links.values()) link.close();
      await session.close();
    },
  };
}

