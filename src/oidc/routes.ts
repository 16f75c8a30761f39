/**
 * The OIDC provider's route table: one line per endpoint, the whole surface in one place.
 */
import type { OidcEndpoint } from './context.js';
import { authorization } from './endpoints/authorization.js';
import { authorizeCallback } from './endpoints/callback.js';
import { discovery, rootDiscovery } from './endpoints/discovery.js';
import { endSession } from './endpoints/end-session.js';
import { externalIdpEndpoints } from './endpoints/external-idp.js';
import { keys } from './endpoints/keys.js';
import { authQueries, loginEndpoints } from './endpoints/login.js';
import { loginStylesheet } from './endpoints/assets.js';
import { revoke } from './endpoints/revoke.js';
import { totpEndpoints } from './endpoints/totp.js';
import { token } from './endpoints/token.js';
import { userinfo } from './endpoints/userinfo.js';

export const oidcRoutes: readonly OidcEndpoint[] = [
  rootDiscovery, //       GET  /.well-known/openid-configuration
  discovery, //           GET  /oidc/.well-known/openid-configuration
  authorization, //       GET|POST /oidc/authorization
  authorizeCallback, //   GET  /oidc/authorize/callback?id=
  ...loginEndpoints, //   GET|POST /oidc/login/{username,password,cert}
  ...totpEndpoints, //    POST /oidc/login/totp, POST|DELETE /oidc/login/totp/enroll, POST .../enroll/verify
  ...externalIdpEndpoints, // GET /oidc/login/ext-idp?authRequestID=&signer=, GET /oidc/ext-idp/callback (decision 0084)
  authQueries, //         GET  /oidc/login/auth-queries?id=
  loginStylesheet, //     GET  /oidc/assets/login-HASH.css
  token, //               POST /oidc/token
  keys, //                GET  /oidc/keys
  userinfo, //            GET|POST /oidc/userinfo
  endSession, //          GET|POST /oidc/end_session
  revoke, //              POST /oidc/revoke
];
