/**
 * The endpoints file (contract seam 2): the controllers a router knows, kept beside its config and written by the
 * router only. `svc router enroll` writes it first (the config's controller addresses, and the API origin the
 * enrollment JWT named, where renewals go); the running router rewrites it as the controllers tell it of their
 * cluster. YAML, mode 0600, replaced atomically so a reader never sees half a file.
 */
import { readFile } from 'node:fs/promises';
import { parse, stringify } from 'yaml';
import { reasonOf } from '../shared/system-errors.js';
import { writeFilesAtomically } from './atomic-files.js';
import { RouterSetupError } from './errors.js';

export interface RouterEndpoints {
  /** Control-plane addresses, `tls:host:port`. */
  ctrl: string[];
  /** The controller's edge client API origin, `https://host:port` (renewal posts /enroll/extend/router there). */
  api?: string;
}

const HEADER = '# Written by svc router: the controllers this router knows. Kept current while it runs.\n';

/**
 * The file's endpoints, or undefined when there is no file yet. A file that is there but unreadable or malformed
 * throws RouterSetupError naming it (a router must not silently forget its controllers).
 */
export async function readEndpointsFile(path: string): Promise<RouterEndpoints | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RouterSetupError(`endpoints file ${path}: cannot be read (${reasonOf(error)})`);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    throw new RouterSetupError(`endpoints file ${path}: is not YAML; delete it and the router writes it again`);
  }
  const { ctrl, api } = (value ?? {}) as { ctrl?: unknown; api?: unknown };
  if (!Array.isArray(ctrl) || ctrl.length === 0 || !ctrl.every((entry) => typeof entry === 'string' && entry !== '')) {
    throw new RouterSetupError(`endpoints file ${path}: 'ctrl' must be a list of controller addresses such as tls:ctrl.example:6262`);
  }
  if (api !== undefined && (typeof api !== 'string' || !URL.canParse(api))) {
    throw new RouterSetupError(`endpoints file ${path}: 'api' must be the controller's API URL such as https://ctrl.example:1280`);
  }
  return { ctrl: [...ctrl] as string[], ...(api === undefined ? {} : { api: api as string }) };
}

/** Replaces the file atomically (temporary file, then rename), mode 0600. */
export async function writeEndpointsFile(path: string, value: RouterEndpoints): Promise<void> {
  await writeFilesAtomically([{ path, label: `endpoints file ${path}`, mode: 0o600, content: endpointsFileText(value) }]);
}

/** The file's text, for callers that write it together with other files. */
export function endpointsFileText(value: RouterEndpoints): string {
  const body = stringify({ ctrl: value.ctrl, ...(value.api === undefined ? {} : { api: value.api }) });
  return HEADER + body;
}
