// Baseline for `npm run bench`: a bare Fastify 5 HTTPS server with the same certificate, answering one JSON
// route with a payload the size of the controller's version document. Prints "ready <port>" when listening.
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

const [certFile, keyFile, payloadFile] = process.argv.slice(2);
const payload = JSON.parse(readFileSync(payloadFile, 'utf8'));
const app = Fastify({ https: { cert: readFileSync(certFile), key: readFileSync(keyFile) } });
app.get('/version', async () => payload);
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`ready ${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
