/**
 * The posture domain's builder (issue 15, item 6; docs/decisions/0029-posture-responses.md): posture responses stored
 * per API session, the MFA answers of a session, and the one evaluator that decides posture checks for a session.
 * Knows nothing of HTTP. Routes reach it as the `posture` domain; the MFA domain tells it when a session answers TOTP.
 */
import type { Database } from '../../persistence/database.js';
import { createPostureCheckRepository } from '../../persistence/repositories/posture-checks.js';
import { createPostureResponseRepository } from '../../persistence/repositories/posture-responses.js';
import type { Clock } from '../../shared/clock.js';
import type { ChangeFeed } from '../change-feed/change-feed.js';
import { createPostureService, type PostureService } from './posture.js';

export type { PostureService, PostureQuery, PolicyPostureQueries, PostureTimerService } from './posture.js';
export { evaluateCheck, MFA_PROMPT_GRACE_SECONDS, NO_TIMEOUT, type CheckOutcome } from './evaluate.js';
export { POSTURE_RESPONSE_TYPE_IDS, type PostureResponseInput } from './response-input.js';
export { MAX_BULK_RESPONSES } from './posture.js';
export { checkFailure, passesAll, type SessionPosture } from './explain.js';

export function buildPostureDomain(database: Database, deps: { clock: Clock; feed?: ChangeFeed }): PostureService {
  return createPostureService({
    responses: createPostureResponseRepository(database),
    checks: createPostureCheckRepository(database),
    clock: deps.clock,
    ...(deps.feed ? { feed: deps.feed } : {}),
  });
}
