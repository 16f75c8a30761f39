#!/usr/bin/env node
// The cost of answering a TOTP factor (needs `npm run build`): MfaService.answer on a real SQLite store (open the
// sealed secret, check the code, move the replay step forward with a conditional UPDATE), against the bare RFC 6238
// check of the same code with otpauth. The clock is moved one step per answer, since each step is accepted once.
// Prints one line per figure (medians of 5 runs of 500 answers).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Secret, TOTP } from 'otpauth';
import { createSecretBox, newSecretsKeyText, parseSecretsKey } from '../../dist/crypto/secret-box.js';
import { openDatabase } from '../../dist/persistence/database.js';
import { createIdentityRepository } from '../../dist/persistence/repositories/identities.js';
import { createMfaRepository } from '../../dist/persistence/repositories/mfa.js';
import { totpCodeAt } from '../../dist/policy/totp.js';
import { createMfaService } from '../../dist/services/mfa/mfa.js';
import { manualClock } from '../../dist/shared/clock.js';
import { ensureDefaultAdmin } from '../../dist/services/identities/default-admin.js';
import { createAuditService } from '../../dist/services/audit/audit.js';
import { auditedChanges } from '../../dist/services/audit/audited-changes.js';
import { createAuditLogRepository } from '../../dist/persistence/repositories/audit-log.js';
import { createSecurityEvents } from '../../dist/services/audit/security-events.js';
import pino from 'pino';

const ANSWERS = 500;
const RUNS = 5;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-totp-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const database = await openDatabase({ kind: 'sqlite', path: join(dir, 'svc.sqlite') });
  const clock = manualClock(new Date('2026-01-01T00:00:00Z'));
  const identities = createIdentityRepository(database);
  await ensureDefaultAdmin({ identities, clock }, { username: 'bench-admin', password: 'bench-password' });
  const row = await database.db.selectFrom('identities').select(['id', 'name']).executeTakeFirstOrThrow();
  const subject = await identities.findById(row.id);
  const audit = createAuditService({ auditLog: createAuditLogRepository(database), clock });
  const box = createSecretBox(parseSecretsKey(newSecretsKeyText()));
  const changes = auditedChanges(database, clock, (store) => createMfaRepository(store, box));
  const mfa = createMfaService({ mfa: createMfaRepository(database, box), identities, changes, clock, issuer: 'bench', events: createSecurityEvents({ log: pino({ level: 'silent' }), audit }) });
  const started = await mfa.start(subject);
  const secret = new URL(started.provisioningUrl).searchParams.get('secret');
  clock.advance(30_000);
  await mfa.verify(subject, totpCodeAt(secret, clock.now()));

  const svcRuns = [];
  const bareRuns = [];
  const bare = new TOTP({ secret: Secret.fromBase32(secret) });
  for (let run = 0; run < RUNS; run++) {
    const codes = [];
    for (let i = 0; i < ANSWERS; i++) codes.push(totpCodeAt(secret, new Date(clock.now().getTime() + (i + 1) * 30_000)));
    let t = performance.now();
    for (const code of codes) {
      clock.advance(30_000);
      await mfa.answer(subject, code);
    }
    svcRuns.push(((performance.now() - t) * 1000) / ANSWERS);
    t = performance.now();
    const at = clock.now().getTime();
    for (let i = 0; i < ANSWERS; i++) {
      if (bare.validate({ token: codes[i], timestamp: at - (ANSWERS - 1 - i) * 30_000, window: 1 }) === null) throw new Error('bare check failed');
    }
    bareRuns.push(((performance.now() - t) * 1000) / ANSWERS);
  }
  await database.close();
  const svc = median(svcRuns);
  const raw = median(bareRuns);
  console.log(`${'TOTP answer (unseal, check, replay-safe UPDATE on SQLite) / bare RFC 6238 check'.padEnd(60)} ${svc.toFixed(0)} µs / ${raw.toFixed(0)} µs = ${(svc / raw).toFixed(1)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
