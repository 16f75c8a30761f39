/**
 * Reading an enrollment JWT before anything trusts it: which method it enrolls (`em`), whether it is still live
 * (`exp`), and where (`iss`, the controller's API origin). Its signature is checked later, against the certificate
 * the controller at `iss` presents (enroll.ts), since only that server can say whether it signed it.
 */
import { decodeJwt } from 'jose';
import { RouterSetupError } from '../errors.js';

export interface RouterEnrollmentClaims {
  /** The router id (`sub`). */
  readonly routerId: string;
  /** The one-time token (`jti`). */
  readonly token: string;
  /** `https://host:port` of the controller's API (`iss`). */
  readonly origin: string;
  readonly expiresAt: Date;
}

/** What each other method enrolls, for the refusal. */
const OTHER_METHODS: Record<string, string> = {
  ott: 'an identity (method ott, enrolled with svc edge enroll)',
  updb: 'an identity with a password (method updb, enrolled with svc edge enroll)',
  ottca: 'an identity with a certificate of a third-party CA (method ottca)',
  ca: 'an identity with a certificate of a third-party CA (method ca)',
  network: 'nothing: it is the network JWT (method network), which only names the controller',
};

/**
 * The claims of a router enrollment JWT read from `file`'s text; RouterSetupError naming `file` when it is not one,
 * enrolls something else, or has expired by `now`.
 */
export function readRouterJwt(text: string, file: string, now: Date): RouterEnrollmentClaims {
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(text.trim());
  } catch {
    throw new RouterSetupError(`${file}: does not hold a JWT (three base64url parts separated by dots)`);
  }
  const { em, sub, jti, iss, exp } = claims;
  if (em !== 'erott') {
    const what = typeof em === 'string' ? (OTHER_METHODS[em] ?? `something else (method ${em})`) : 'nothing (it has no em claim)';
    throw new RouterSetupError(`${file}: this JWT enrolls ${what}, not a router; a router's JWT comes from svc edge create edge-router NAME -o FILE`);
  }
  for (const [name, value] of [['sub', sub], ['jti', jti], ['iss', iss]] as const) {
    if (typeof value !== 'string' || value === '') throw new RouterSetupError(`${file}: the JWT has no '${name}' claim; it is not an enrollment JWT`);
  }
  if (typeof exp !== 'number') throw new RouterSetupError(`${file}: the JWT has no 'exp' claim; router enrollment JWTs always expire`);
  const expiresAt = new Date(exp * 1000);
  if (expiresAt.getTime() <= now.getTime()) {
    throw new RouterSetupError(`${file}: the enrollment JWT expired at ${expiresAt.toISOString()}; ask for a new one (svc edge do edge-router re-enroll NAME -o FILE)`);
  }
  let origin: URL;
  try {
    origin = new URL(iss as string);
  } catch {
    throw new RouterSetupError(`${file}: the JWT's issuer '${String(iss)}' is not the controller's URL`);
  }
  if (origin.protocol !== 'https:') throw new RouterSetupError(`${file}: the JWT's issuer '${String(iss)}' is not an https:// address`);
  return { routerId: sub as string, token: jti as string, origin: origin.origin, expiresAt };
}
