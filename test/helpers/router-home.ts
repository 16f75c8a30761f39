/**
 * A router's folder for tests of `svc router enroll` and renewal: a router.yml whose identity files live in a
 * `certs/` subfolder (relative paths, as an operator writes them), the JWT file beside it, and the edge router
 * created at the controller that the JWT enrolls. Fixture builders: they return values and never assert.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { TestController } from './controller.js';
import { createdId, managementClient } from './management.js';

export interface RouterHome {
  dir: string;
  config: string;
  jwtFile: string;
  /** Absolute paths of the identity files and the endpoints file. */
  files: { cert: string; server_cert: string; key: string; ca: string; endpoints: string };
  /** Every file under dir except router.yml and the JWT, with its content (what enrollment wrote, temp files included). */
  written(): Record<string, string>;
  remove(): void;
}

export const ROUTER_SANS = { dns: ['router-a.example.test'], ip: ['10.1.2.3'] };

/** Writes router.yml (the config object after `modify`) and `jwt` to a new folder. */
export function routerHome(jwt: string, modify: (config: Record<string, any>) => void = () => {}): RouterHome {
  const dir = mkdtempSync(join(tmpdir(), 'svc-router-'));
  mkdirSync(join(dir, 'certs'));
  const config: Record<string, any> = {
    v: 3,
    identity: { cert: 'certs/client.pem', server_cert: 'certs/server.pem', key: 'certs/key.pem', ca: 'certs/ca.pem' },
    ctrl: { endpoint: 'tls:127.0.0.1:6262' },
    csr: { sans: { ...ROUTER_SANS } },
    edge: {},
  };
  modify(config);
  const file = join(dir, 'router.yml');
  writeFileSync(file, stringify(config));
  const jwtFile = join(dir, 'router.jwt');
  writeFileSync(jwtFile, jwt);
  const under = (path: string) => join(dir, path);
  const listing = (folder: string, prefix = ''): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? listing(join(folder, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
    );
  return {
    dir,
    config: file,
    jwtFile,
    files: {
      cert: under(config.identity.cert),
      server_cert: under(config.identity.server_cert),
      key: under(config.identity.key),
      ca: under(config.identity.ca),
      endpoints: under('endpoints.yml'),
    },
    written: () =>
      Object.fromEntries(
        listing(dir)
          .filter((name) => name !== 'router.yml' && name !== 'router.jwt')
          .map((name) => [name, readFileSync(join(dir, name), 'utf8')]),
      ),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Creates edge router `name` at `ctl`; its id and enrollment JWT. */
export async function newEdgeRouter(ctl: TestController, name: string): Promise<{ id: string; jwt: string }> {
  const admin = managementClient(ctl, await ctl.adminToken());
  const id = await createdId(admin, '/edge-routers', { name });
  const detail = (await admin.get(`/edge-routers/${id}`)).json().data;
  return { id, jwt: detail.enrollmentJwt as string };
}

/** The router's detail as management shows it. */
export async function edgeRouterDetail(ctl: TestController, id: string): Promise<Record<string, any>> {
  return (await managementClient(ctl, await ctl.adminToken()).get(`/edge-routers/${id}`)).json().data;
}
