// Baseline for the login benchmark: raw argon2id verifications per second at the parameters svc uses, with the
// same number of requests in flight as the load generator keeps, in a process of its own. Prints JSON.
import { verify } from '@node-rs/argon2';
import { hashPassword } from '../../dist/crypto/passwords.js';

const [concurrency = '10', seconds = '5'] = process.argv.slice(2);
// The hash svc itself makes (src/crypto/passwords.ts), so the parameters are svc's.
const encoded = await hashPassword('bench-password');
const deadline = Date.now() + Number(seconds) * 1000;
let done = 0;
async function worker() {
  while (Date.now() < deadline) {
    if (!(await verify(encoded, 'bench-password'))) throw new Error('verify failed');
    done++;
  }
}
const started = Date.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
process.stdout.write(JSON.stringify({ rps: done / ((Date.now() - started) / 1000), verifies: done }));
