/**
 * Posture checks: conditions on a client device (its OS, MAC addresses, Windows domain, running processes) or on its
 * API session (MFA) that service policies may require (reference facts §B1). Each type has its own fields; they are
 * checked when written, so evaluating a stored check can never fail on malformed data (facts §A8.6, §B5).
 */

export const POSTURE_CHECK_TYPE_IDS = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'] as const;
export type PostureCheckTypeId = (typeof POSTURE_CHECK_TYPE_IDS)[number];

export const OS_TYPES = ['Windows', 'WindowsServer', 'Android', 'iOS', 'Linux', 'macOS'] as const;
export type OsType = (typeof OS_TYPES)[number];

export interface OperatingSystem {
  type: OsType;
  /** Semantic version ranges (e.g. `>=10.0.19041`); empty = any version. */
  versions: string[];
}

export interface ProcessCheck {
  osType: OsType;
  path: string;
  hashes: string[];
  signerFingerprint?: string;
}

export interface ProcessMultiEntry {
  osType: OsType;
  path: string;
  hashes: string[];
  signerFingerprints: string[];
}

/** The fields of each type, as stored. */
export type PostureCheckBody =
  | { typeId: 'OS'; operatingSystems: OperatingSystem[] }
  | { typeId: 'MAC'; macAddresses: string[] }
  | { typeId: 'DOMAIN'; domains: string[] }
  | { typeId: 'PROCESS'; process: ProcessCheck }
  | { typeId: 'PROCESS_MULTI'; semantic: 'AllOf' | 'AnyOf'; processes: ProcessMultiEntry[] }
  | {
      typeId: 'MFA';
      /** Seconds an MFA pass lasts; -1 or 0 = no timeout. */
      timeoutSeconds: number;
      promptOnWake: boolean;
      promptOnUnlock: boolean;
      ignoreLegacyEndpoints: boolean;
    };

export type PostureCheck = PostureCheckBody & {
  id: string;
  name: string;
  roleAttributes: string[];
  tags: Record<string, string | boolean | null>;
  /** Counts the stored changes: clients re-read a check whose version moved. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
};

/** A check type as `GET /posture-check-types` lists it: which operating systems can answer it. */
export interface PostureCheckType {
  id: PostureCheckTypeId;
  name: string;
  operatingSystems: OsType[];
}

const MOBILE: OsType[] = ['Android', 'iOS'];
const DESKTOP: OsType[] = ['Windows', 'WindowsServer', 'Linux', 'macOS'];

/** The built-in check types (read-only). */
export const POSTURE_CHECK_TYPES: readonly PostureCheckType[] = [
  { id: 'OS', name: 'Operating System', operatingSystems: [...DESKTOP, ...MOBILE] },
  { id: 'MAC', name: 'MAC Address', operatingSystems: [...DESKTOP, 'Android'] },
  { id: 'DOMAIN', name: 'Windows Domain', operatingSystems: ['Windows', 'WindowsServer'] },
  { id: 'PROCESS', name: 'Process', operatingSystems: DESKTOP },
  { id: 'PROCESS_MULTI', name: 'Multi Process', operatingSystems: DESKTOP },
  { id: 'MFA', name: 'MFA', operatingSystems: [...DESKTOP, ...MOBILE] },
];

/** The fields of each type beside `typeId`: a stored check holds these and no others. */
export const POSTURE_CHECK_TYPE_FIELDS: Readonly<Record<PostureCheckTypeId, readonly string[]>> = {
  OS: ['operatingSystems'],
  MAC: ['macAddresses'],
  DOMAIN: ['domains'],
  PROCESS: ['process'],
  PROCESS_MULTI: ['semantic', 'processes'],
  MFA: ['timeoutSeconds', 'promptOnWake', 'promptOnUnlock', 'ignoreLegacyEndpoints'],
};
