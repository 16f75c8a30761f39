/**
 * `POST authenticate/mfa` (spec: Legacy API session states): a session answers its TOTP auth query with a TOTP or
 * recovery code, and the same token continues fully authenticated. A session that enrolled while partially
 * authenticated (its policy requires TOTP) completes that enrollment with its first code here. An already complete
 * session, or an OIDC one, may still check a code. Every accepted code, of either kind of session, restarts the
 * session's MFA posture (docs/decisions/0029-posture-responses.md).
 */
import type { ApiSessionService } from '../sessions/api-sessions.js';
import type { MfaService } from './mfa.js';
import type { AuthContext } from '../authentication/request-auth.js';
import type { PostureService } from '../posture/index.js';

export interface SessionMfaService {
  answer(auth: AuthContext, code: string | undefined): Promise<void>;
}

export function createSessionMfaService(deps: { mfa: MfaService; apiSessions: ApiSessionService; posture?: Pick<PostureService, 'mfaAnswered'> }): SessionMfaService {
  return {
    async answer(auth, code) {
      const outstanding = auth.kind === 'legacy' && auth.session.outstanding.some((factor) => factor.kind === 'totp');
      await deps.mfa.answer(auth.identity, code, { completePending: outstanding });
      if (outstanding) auth.session.outstanding = await deps.apiSessions.answered(auth.session, 'totp');
      await deps.posture?.mfaAnswered(auth);
    },
  };
}
