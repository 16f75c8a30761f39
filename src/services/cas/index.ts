/**
 * The third-party CA domain's builder (issue 16; decision 0037): CA management, the trusted set every certificate
 * login and the well-known bundle read (kept current by the change feed), and what the ottca and ca enrollment
 * methods need of CAs. Every change commits with its audit entry in one transaction, and so does the end of the
 * sessions a CA's withdrawn trust let in (decision 0057).
 */
import { ApiError } from '../../errors/api-error.js';
import type { Database } from '../../persistence/database.js';
import { createCaRepository, type CaEnrollOutcome } from '../../persistence/repositories/cas.js';
import type { Clock } from '../../shared/clock.js';
import { auditedChanges } from '../audit/audited-changes.js';
import type { SecurityEvents } from '../audit/security-events.js';
import type { ChangeFeed } from '../change-feed/index.js';
import type { EnrollCas } from '../enrollment/methods/enroll-method.js';
import { endSessionsReachingCa } from '../../persistence/repositories/ca-sessions.js';
import { createCaTrust, type CaTrust } from './ca-trust.js';
import { withdrawingTrust } from './ca-withdrawal.js';
import { createCaService, type CaJwtSigner, type CaService } from './cas.js';

export type { CaService } from './cas.js';
export type { CaTrust, TrustedCa } from './ca-trust.js';

export interface CaDomain {
  service: CaService;
  trust: CaTrust;
  enroll: EnrollCas;
}

export function buildCaDomain(
  database: Database,
  deps: {
    clock: Clock;
    feed: ChangeFeed;
    events: Pick<SecurityEvents, 'trustChanged'>;
    ownCaPems: readonly string[];
    /** The CA certificates of the listeners' server chains (past each leaf): own CAs too, never registrable. */
    ownIssuerPems: readonly string[];
    jwtSigner: CaJwtSigner | undefined;
  },
): CaDomain {
  const { clock } = deps;
  const cas = createCaRepository(database);
  // A CA's change and the end of the sessions its withdrawn trust let in commit together (ca-withdrawal.ts).
  const changes = auditedChanges(database, clock, (store) => withdrawingTrust(createCaRepository(store), (caId) => endSessionsReachingCa(store, caId, clock.now())));
  const trust = createCaTrust({ cas, feed: deps.feed, ownCaPems: deps.ownCaPems, ownIssuerPems: deps.ownIssuerPems });
  return {
    service: createCaService({ cas, changes, events: deps.events, clock, jwtSigner: deps.jwtSigner, isOwnCa: trust.isOwnCa }),
    trust,
    enroll: {
      findById: (id) => cas.findById(id),
      verified: () => trust.verified(),
      certInUse: (fingerprint) => cas.certInUse(fingerprint),
      async enrollIdentity(identity, authenticator, details) {
        let outcome = 'enrolled' as CaEnrollOutcome;
        try {
          await changes(async ({ records, audit }) => {
            outcome = await records.insertEnrolledIdentity(identity, authenticator);
            // A refused insert leaves a PostgreSQL transaction unusable: throwing rolls it back.
            if (outcome !== 'enrolled') throw new Refused();
            await audit.record({ id: identity.id, name: identity.name }, 'enroll', 'identity', identity.id, { method: 'ca', authenticatorId: authenticator.id, ...details });
          });
        } catch (error) {
          if (!(error instanceof Refused)) throw error;
        }
        if (outcome === 'cert-in-use') {
          throw new ApiError('CERT_IN_USE', { cause: { field: 'clientCertificate', reason: 'an authenticator already holds this certificate', value: authenticator.certFingerprint } });
        }
        if (outcome === 'external-id-taken') {
          throw new ApiError('COULD_NOT_VALIDATE', {
            message: `The externalId '${identity.externalId ?? ''}' read from the certificate is already another identity's`,
            cause: { field: 'externalId', reason: 'is already in use', value: identity.externalId },
          });
        }
        return outcome;
      },
    },
  };
}

/** Rolls back an enrollment whose insert was refused. */
class Refused extends Error {}
