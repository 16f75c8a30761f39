/**
 * The identity file `svc edge enroll` writes, as the public SDKs read it: `{ztAPI, ztAPIs?, id: {key, cert, ca}}`
 * where each of key, cert and ca is `pem:<PEM text>` or `file:<path>` (`file://<path>` too; a relative path is taken
 * from the identity file's folder). Loading checks everything an SDK needs before it talks to anyone, and a file
 * that will not do is refused with one sentence naming the file and the field.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { SdkError } from './errors.js';

/** The parsed file, as written (values still `pem:` or `file:`). */
export interface SdkIdentityFile {
  ztAPI: string;
  ztAPIs?: string[];
  id: { key: string; cert: string; ca?: string };
}

/** What the SDK works with: the controller's client API, and the identity's key, certificate chain and CAs. */
export interface LoadedIdentity {
  /** The client API base, such as `https://ctrl.example:1280/edge/client/v1`. */
  clientApi: URL;
  /** Every client API URL the file lists, the first being `clientApi`. */
  clientApis: URL[];
  keyPem: string;
  /** The leaf certificate, then any intermediates. */
  certPem: string;
  /** The CA bundle the controller and routers are checked against (may be empty: then only after login). */
  caPem: string;
  /** The leaf's subject common name. */
  commonName: string;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function refuse(where: string, sentence: string): never {
  throw new SdkError('BAD_IDENTITY', `identity ${where}: ${sentence}`);
}

/** The text of a `pem:` or `file:` value. */
function valueText(where: string, field: string, value: unknown, folder: string): string {
  if (value === undefined || value === null || value === '') refuse(where, `${field} is missing`);
  if (typeof value !== 'string') refuse(where, `${field} must be a string starting with pem: or file:`);
  if (value.startsWith('pem:')) return value.slice(4);
  if (value.startsWith('file:')) {
    const path = value.startsWith('file://') ? value.slice(7) : value.slice(5);
    const full = isAbsolute(path) ? path : resolve(folder, path);
    try {
      return readFileSync(full, 'utf8');
    } catch (error) {
      refuse(where, `${field} names file '${full}', which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  refuse(where, `${field} must start with pem: or file:, not '${value.slice(0, 12)}'`);
}

function clientApiUrl(where: string, field: string, value: unknown): URL {
  if (typeof value !== 'string' || value === '') refuse(where, `${field} is missing`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    refuse(where, `${field} '${value}' is not a URL`);
  }
  if (url.protocol !== 'https:') refuse(where, `${field} '${value}' is not an https:// URL`);
  return url;
}

/**
 * Checks a parsed identity file and reads its values. `where` names it in errors (`file '/x/id.json'`), `folder`
 * is where relative `file:` paths start.
 */
export function loadIdentity(file: unknown, where = 'object', folder = process.cwd()): LoadedIdentity {
  if (typeof file !== 'object' || file === null || Array.isArray(file)) refuse(where, 'is not a JSON object');
  const f = file as Record<string, unknown>;
  const clientApi = clientApiUrl(where, 'ztAPI', f.ztAPI);
  const others = Array.isArray(f.ztAPIs) ? f.ztAPIs.map((u, i) => clientApiUrl(where, `ztAPIs[${i}]`, u)) : [];
  const id = f.id;
  if (typeof id !== 'object' || id === null) refuse(where, 'id is missing (it holds key, cert and ca)');
  const fields = id as Record<string, unknown>;
  const keyPem = valueText(where, 'id.key', fields.key, folder);
  const certPem = valueText(where, 'id.cert', fields.cert, folder);
  const caPem = fields.ca === undefined || fields.ca === '' ? '' : valueText(where, 'id.ca', fields.ca, folder);
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    refuse(where, 'id.key is not a PEM private key');
  }
  const certs = certPem.match(PEM_CERT) ?? [];
  if (certs.length === 0) refuse(where, 'id.cert holds no PEM certificate');
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(certs[0]!);
  } catch {
    refuse(where, 'id.cert is not a readable PEM certificate');
  }
  if (!leaf.checkPrivateKey(key)) refuse(where, "id.key is not the private key of id.cert's certificate");
  if (caPem !== '') {
    for (const [i, pem] of (caPem.match(PEM_CERT) ?? []).entries()) {
      try {
        new X509Certificate(pem);
      } catch {
        refuse(where, `id.ca certificate ${i + 1} is not a readable PEM certificate`);
      }
    }
    if ((caPem.match(PEM_CERT) ?? []).length === 0) refuse(where, 'id.ca holds no PEM certificate');
  }
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(leaf.subject)?.[1] ?? '';
  const clientApis = [clientApi, ...others.filter((u) => u.href !== clientApi.href)];
  return { clientApi, clientApis, keyPem, certPem, caPem, commonName };
}

/** Reads and checks an identity file from disk. */
export function readIdentityFile(path: string): LoadedIdentity {
  const where = `file '${path}'`;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SdkError('BAD_IDENTITY', `identity ${where} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SdkError('BAD_IDENTITY', `identity ${where} is not JSON: ${(error as Error).message}`);
  }
  return loadIdentity(parsed, where, dirname(resolve(path)));
}
