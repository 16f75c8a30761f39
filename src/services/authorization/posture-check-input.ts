/**
 * What a posture check's type fields may hold, checked when written so that evaluation never meets malformed data
 * (reference facts §A8.6, §B5): each type's required fields present and no field of another type; OS version
 * ranges that parse; MAC addresses of six bytes; no operating system, or PROCESS_MULTI path, named twice (upstream
 * silently lets the last one win). Every refusal is 400 COULD_NOT_VALIDATE naming the field.
 */
import {
  POSTURE_CHECK_TYPE_FIELDS,
  type OperatingSystem,
  type PostureCheckBody,
  type PostureCheckTypeId,
  type ProcessCheck,
  type ProcessMultiEntry,
} from '../../domain/posture-check.js';
import { ApiError } from '../../errors/api-error.js';

/** The type fields as a request gives them (their JSON types already checked by the wire schema). */
export type PostureTypeFieldsInput = Record<string, unknown>;

const ALL_TYPE_FIELDS = new Set(Object.values(POSTURE_CHECK_TYPE_FIELDS).flat());

function invalid(field: string, reason: string, value?: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { message: `The request is invalid: ${field} ${reason}`, cause: { field, reason, value } });
}

/** One comparator of a semantic version range: an optional operator and a version of one to three numbers. */
const COMPARATOR = String.raw`(?:>=|<=|>|<|=|==|!=)?\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`;
/** Comparators joined by spaces (all must hold), alternatives joined by `||` (blang/semver's range syntax). */
const VERSION_RANGE = new RegExp(String.raw`^${COMPARATOR}(?:\s+${COMPARATOR})*(?:\s*\|\|\s*${COMPARATOR}(?:\s+${COMPARATOR})*)*$`);
const HEX = /^[0-9a-fA-F]+$/;

/** The type's fields that the input leaves out or the ones it must not have, as errors. */
function checkFieldSet(typeId: PostureCheckTypeId, given: PostureTypeFieldsInput, required: readonly string[]): void {
  const own = POSTURE_CHECK_TYPE_FIELDS[typeId];
  for (const key of Object.keys(given)) {
    if (given[key] !== undefined && ALL_TYPE_FIELDS.has(key) && !own.includes(key)) throw invalid(key, `is not a field of a ${typeId} check`, given[key]);
  }
  for (const key of required) if (given[key] === undefined || given[key] === null) throw invalid(key, `is required for a ${typeId} check`);
}

function nonEmptyList<T>(field: string, list: unknown): T[] {
  if (!Array.isArray(list) || list.length === 0) throw invalid(field, 'must hold at least one entry', list);
  return list as T[];
}

function operatingSystems(given: unknown): OperatingSystem[] {
  const seen = new Set<string>();
  return nonEmptyList<OperatingSystem>('operatingSystems', given).map((os, index) => {
    const type = os.type.toLowerCase();
    if (seen.has(type)) throw invalid(`operatingSystems[${index}].type`, 'names an operating system given earlier', os.type);
    seen.add(type);
    const versions = os.versions ?? [];
    versions.forEach((range, at) => {
      if (!VERSION_RANGE.test(range.trim())) throw invalid(`operatingSystems[${index}].versions[${at}]`, "must be a semantic version range, e.g. '>=10.0.19041'", range);
    });
    return { type: os.type, versions: versions.map((range) => range.trim()) };
  });
}

function macAddresses(given: unknown): string[] {
  return nonEmptyList<string>('macAddresses', given).map((mac, index) => {
    // Compared after keeping only the hex digits (reference facts §B1), so that is what must make six bytes.
    if (mac.replace(/[^0-9a-fA-F]/g, '').length !== 12) throw invalid(`macAddresses[${index}]`, 'must be a MAC address of six bytes', mac);
    return mac;
  });
}

function domains(given: unknown): string[] {
  return nonEmptyList<string>('domains', given).map((domain, index) => {
    if (domain.trim() === '') throw invalid(`domains[${index}]`, 'must not be empty', domain);
    return domain;
  });
}

function hexList(field: string, values: string[] | undefined): string[] {
  return (values ?? []).map((value, index) => {
    if (!HEX.test(value)) throw invalid(`${field}[${index}]`, 'must be hexadecimal', value);
    return value;
  });
}

function processCheck(given: ProcessCheck): ProcessCheck {
  if (given.path.trim() === '') throw invalid('process.path', 'must not be empty', given.path);
  const signer = given.signerFingerprint;
  if (signer !== undefined && signer !== '' && !HEX.test(signer)) throw invalid('process.signerFingerprint', 'must be hexadecimal', signer);
  return {
    osType: given.osType,
    path: given.path,
    hashes: hexList('process.hashes', given.hashes),
    ...(signer ? { signerFingerprint: signer } : {}),
  };
}

function processes(given: unknown): ProcessMultiEntry[] {
  const paths = new Set<string>();
  return nonEmptyList<ProcessMultiEntry>('processes', given).map((process, index) => {
    const field = `processes[${index}]`;
    if (process.path.trim() === '') throw invalid(`${field}.path`, 'must not be empty', process.path);
    // Responses are matched to entries by path, so a path may appear once.
    if (paths.has(process.path)) throw invalid(`${field}.path`, 'names a path given earlier', process.path);
    paths.add(process.path);
    return {
      osType: process.osType,
      path: process.path,
      hashes: hexList(`${field}.hashes`, process.hashes),
      signerFingerprints: hexList(`${field}.signerFingerprints`, process.signerFingerprints),
    };
  });
}

/** The body of a check of type `typeId` from whole type fields (create, PUT); MFA's absent fields take their defaults. */
export function postureCheckBody(typeId: PostureCheckTypeId, given: PostureTypeFieldsInput): PostureCheckBody {
  switch (typeId) {
    case 'OS':
      checkFieldSet(typeId, given, ['operatingSystems']);
      return { typeId, operatingSystems: operatingSystems(given.operatingSystems) };
    case 'MAC':
      checkFieldSet(typeId, given, ['macAddresses']);
      return { typeId, macAddresses: macAddresses(given.macAddresses) };
    case 'DOMAIN':
      checkFieldSet(typeId, given, ['domains']);
      return { typeId, domains: domains(given.domains) };
    case 'PROCESS':
      checkFieldSet(typeId, given, ['process']);
      return { typeId, process: processCheck(given.process as ProcessCheck) };
    case 'PROCESS_MULTI':
      checkFieldSet(typeId, given, ['semantic', 'processes']);
      return { typeId, semantic: given.semantic as 'AllOf' | 'AnyOf', processes: processes(given.processes) };
    case 'MFA':
      checkFieldSet(typeId, given, []);
      return {
        typeId,
        // -1: no timeout (the reference's value for "none").
        timeoutSeconds: (given.timeoutSeconds as number | null | undefined) ?? -1,
        promptOnWake: (given.promptOnWake as boolean | null | undefined) ?? false,
        promptOnUnlock: (given.promptOnUnlock as boolean | null | undefined) ?? false,
        ignoreLegacyEndpoints: (given.ignoreLegacyEndpoints as boolean | null | undefined) ?? false,
      };
    default:
      throw invalid('typeId', 'is not a posture check type', typeId);
  }
}

/** The stored type fields with those `patch` gives (null keeps the stored value), as whole fields again. */
export function patchedTypeFields(stored: PostureTypeFieldsInput, patch: PostureTypeFieldsInput): PostureTypeFieldsInput {
  const given = Object.entries(patch).filter(([, value]) => value !== undefined && value !== null);
  return { ...stored, ...Object.fromEntries(given) };
}
