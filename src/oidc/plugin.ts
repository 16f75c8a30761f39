/**
 * The OIDC provider as one encapsulated Fastify plugin for an `edge-oidc` binding: its own form parser and its own
 * error handler (RFC 6749 error shape instead of the Edge API envelope), and the route table of routes.ts.
 */
import type { FastifyInstance, HTTPMethods } from 'fastify';
import type { BindPoint, RedirectUriPattern } from '../config/types.js';
import { FORBIDDEN_KEYS } from '../shared/safe-json.js';
import type { Services } from '../services/services.js';
import type { OidcContext } from './context.js';
import { oidcErrorHandler, sendOAuthError } from './errors.js';
import { oidcIssuer } from './issuer.js';
import { parseForm } from './params.js';
import { oidcRoutes } from './routes.js';

/** The methods a path of the provider may be asked with; those it does not serve are answered 405. */
const OTHER_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface OidcPluginOptions {
  services: Services;
  bindPoint: BindPoint;
  redirectUris: readonly RedirectUriPattern[];
}

/** Registers the provider on `app`; throws when the services have no OIDC provider (no edge section). */
export async function registerOidc(app: FastifyInstance, options: OidcPluginOptions): Promise<void> {
  const { services, bindPoint, redirectUris } = options;
  if (!services.oidc || !services.accessTokens || !services.oidcFactors || !services.externalIdp) throw new Error('the edge-oidc binding needs the edge section (OIDC provider)');
  const context: OidcContext = {
    provider: services.oidc,
    accessTokens: services.accessTokens,
    factors: services.oidcFactors,
    externalIdp: services.externalIdp,
    where: { issuer: oidcIssuer(bindPoint), redirectUris },
  };
  await app.register(async (oidc) => {
    oidc.setErrorHandler(oidcErrorHandler);
    // Token, revoke and the login form post form-encoded bodies (RFC 6749 §3.2, Appendix B). JSON bodies take the
    // listener's strict parser (http/kit/json-body.ts); its refused keys are refused as form names too.
    oidc.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      let form: ReturnType<typeof parseForm>;
      try {
        form = parseForm(body as string, FORBIDDEN_KEYS);
      } catch (error) {
        done(error as Error, undefined);
        return;
      }
      done(null, form);
    });
    const methodsByUrl = new Map<string, Set<string>>();
    for (const endpoint of oidcRoutes) {
      oidc.route({ method: endpoint.method, url: endpoint.url, handler: (request, reply) => endpoint.handler(context, request, reply) });
      const methods = methodsByUrl.get(endpoint.url) ?? new Set<string>();
      for (const method of [endpoint.method].flat()) methods.add(method);
      methodsByUrl.set(endpoint.url, methods);
    }
    // A known path with another method is 405 with `Allow` (RFC 9110 §15.5.6), as on the Edge APIs, not 404.
    for (const [url, methods] of methodsByUrl) {
      const allow: string[] = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])];
      const others = OTHER_METHODS.filter((method) => !allow.includes(method));
      if (others.length === 0) continue;
      oidc.route({
        method: others,
        url,
        handler: (request, reply) =>
          sendOAuthError(reply.header('allow', allow.join(', ')), 405, 'invalid_request', `${request.method} is not supported here; use ${allow.join(', ')}`),
      });
    }
  });
}
