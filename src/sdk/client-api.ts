/**
 * The client API calls the SDK makes with its API session: who it is, the services it may see (read page by page),
 * sessions to dial or bind a service (`POST /sessions`), the edge routers of the identity and of a service, and the
 * controller's CA bundle (/.well-known/est/cacerts) that router certificates chain to. A 401 is answered once by
 * logging in again; other refusals become SdkErrors naming the call.
 */
import { certificatesOfPkcs7 } from '../pki/pkcs7.js';
import { SdkError, type SdkErrorCode } from './errors.js';
import type { ApiSession } from './api-session.js';
import { answerReason, apiUrl, type ControllerHttp, type HttpAnswer, type HttpRequest } from './controller-http.js';

export interface SdkService {
  id: string;
  name: string;
  encryptionRequired: boolean;
  /** `Dial` and/or `Bind`. */
  permissions: string[];
  /** Config data by config type name. */
  configs: Record<string, unknown>;
}

/** A router as the SDK reaches it: its name and the `tls://host:port` its edge listener advertises. */
export interface SdkRouter {
  name: string;
  url: string;
}

export interface EdgeSession {
  id: string;
  token: string;
  routers: SdkRouter[];
}

/** What a service list asks for beyond the services themselves. */
export interface ServiceListOptions {
  /** Config type names (or ids) whose configs come with each service, or `all`; default: those asked for at login. */
  configTypes?: string[];
}

export interface ClientApi {
  currentIdentity(): Promise<{ id: string; name: string }>;
  services(options?: ServiceListOptions): Promise<SdkService[]>;
  /** When the identity's services (or anything they say) last changed, as the controller's ISO date-time. */
  servicesChangedAt(): Promise<string>;
  service(name: string): Promise<SdkService>;
  createSession(service: SdkService, type: 'Dial' | 'Bind'): Promise<EdgeSession>;
  identityRouters(): Promise<SdkRouter[]>;
  /** The routers through which the service may be reached; undefined when the controller does not say (404). */
  serviceRouters(service: SdkService): Promise<SdkRouter[] | undefined>;
  caBundle(): Promise<string[]>;
}

const PAGE = 500;

/** Routers with a tls address, as `{name, url}` (the C SDK ignores every other protocol). */
function routersOf(list: unknown): SdkRouter[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((r: any) => {
    const url = r?.supportedProtocols?.tls ?? r?.urls?.tls;
    return typeof r?.name === 'string' && typeof url === 'string' && r.isOnline !== false ? [{ name: r.name, url }] : [];
  });
}

function serviceOf(s: any): SdkService {
  return { id: String(s.id), name: String(s.name), encryptionRequired: s.encryptionRequired === true, permissions: Array.isArray(s.permissions) ? s.permissions : [], configs: s.config ?? {} };
}

export function clientApi(http: ControllerHttp, base: URL, session: ApiSession): ClientApi {
  /** One call; a 401 renews the session and tries once more. */
  async function call(path: string, request: HttpRequest = {}): Promise<HttpAnswer> {
    const send = () => http(apiUrl(base, path), { ...request, headers: { ...request.headers, ...session.authHeaders() } });
    const first = await send();
    if (first.status !== 401) return first;
    await session.renew();
    return send();
  }
  const fail = (code: SdkErrorCode, what: string, answer: HttpAnswer) => new SdkError(code, `${what}: the controller answered ${answerReason(answer)}`);

  async function allServices(filter?: string, options: ServiceListOptions = {}): Promise<SdkService[]> {
    const out: SdkService[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
      if (filter) query.set('filter', filter);
      // Repeated, as the public SDKs send it.
      for (const type of options.configTypes ?? []) query.append('configTypes', type);
      const answer = await call(`/services?${query}`);
      if (answer.status !== 200 || !Array.isArray(answer.json?.data)) throw fail('NOT_AUTHORIZED', 'listing services', answer);
      out.push(...answer.json.data.map(serviceOf));
      const total = Number(answer.json.meta?.pagination?.totalCount ?? out.length);
      if (answer.json.data.length < PAGE || out.length >= total) return out;
    }
  }

  return {
    async currentIdentity() {
      const answer = await call('/current-identity');
      if (answer.status !== 200) throw fail('NOT_AUTHENTICATED', 'reading the current identity', answer);
      return { id: String(answer.json.data.id), name: String(answer.json.data.name) };
    },
    services: (options) => allServices(undefined, options),
    async servicesChangedAt() {
      const answer = await call('/current-api-session/service-updates');
      const at = answer.json?.data?.lastChangeAt;
      if (answer.status !== 200 || typeof at !== 'string') throw fail('NOT_AUTHENTICATED', 'reading /current-api-session/service-updates', answer);
      return at;
    },
    async service(name) {
      const found = (await allServices(`name = ${JSON.stringify(name)}`)).find((s) => s.name === name);
      if (!found) throw new SdkError('NO_SUCH_SERVICE', `service '${name}' does not exist or this identity may not see it`);
      return found;
    },
    async createSession(service, type) {
      const answer = await call('/sessions', { method: 'POST', json: { serviceId: service.id, type } });
      const data = answer.json?.data;
      if ((answer.status !== 200 && answer.status !== 201) || typeof data?.token !== 'string') {
        if (answer.json?.error?.code === 'NO_EDGE_ROUTERS_AVAILABLE') throw new SdkError('NO_ROUTER', `no edge router is assigned to both identity and service '${service.name}' (edge router policies and service edge router policies)`);
        const code = answer.status === 404 ? 'NO_SUCH_SERVICE' : 'NOT_AUTHORIZED';
        throw fail(code, `opening a ${type} session for service '${service.name}'`, answer);
      }
      return { id: String(data.id), token: data.token, routers: routersOf(data.edgeRouters) };
    },
    async identityRouters() {
      const answer = await call(`/current-identity/edge-routers?limit=${PAGE}`);
      if (answer.status !== 200) throw fail('NOT_AUTHORIZED', "listing the identity's edge routers", answer);
      return routersOf(answer.json?.data);
    },
    async serviceRouters(service) {
      const answer = await call(`/services/${encodeURIComponent(service.id)}/edge-routers?limit=${PAGE}`);
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw fail('NOT_AUTHORIZED', `listing the edge routers of service '${service.name}'`, answer);
      return routersOf(answer.json?.data?.edgeRouters);
    },
    async caBundle() {
      const answer = await http(new URL('/.well-known/est/cacerts', base), { headers: { accept: 'application/pkcs7-mime' } });
      if (answer.status !== 200) throw fail('CONTROLLER_UNREACHABLE', 'reading /.well-known/est/cacerts', answer);
      return certificatesOfPkcs7(answer.text);
    },
  };
}
