/**
 * The one source of randomness: identifiers and secrets come from the OS CSPRNG here,
 * so nothing else in the code base calls Math.random or picks its own generator.
 */
import { randomBytes, randomFillSync, randomUUID } from 'node:crypto';

const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes for entity ids, drawn from the CSPRNG a few kilobytes at a time (one system call per ~250 ids rather
 * than one per id: ids are made on every login). Ids name things, they do not guard them, so holding bytes for them
 * in memory costs nothing; secrets below are drawn afresh each time.
 */
const idBytes = Buffer.alloc(4096);
let idBytesUsed = idBytes.length;

function nextIdByte(): number {
  if (idBytesUsed === idBytes.length) {
    randomFillSync(idBytes);
    idBytesUsed = 0;
  }
  return idBytes[idBytesUsed++] as number;
}

/** A 16-character base-62 entity id (about 95 bits): short enough to type, long enough never to collide. */
export function newEntityId(): string {
  // 62 does not divide 256, so reject bytes >= 248 (4 * 62) to keep every character equally likely.
  let id = '';
  while (id.length < 16) {
    const byte = nextIdByte();
    if (byte < 248) id += ID_ALPHABET[byte % 62];
  }
  return id;
}

/** A secret token of `bytes` random bytes, base64url without padding (256 bits by default). */
export function newSecretToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A random UUID v4 (used where the protocol or the reference API expects one, e.g. enrollment tokens). */
export function newUuid(): string {
  return randomUUID();
}

/** A readable password for generated admin accounts: 24 base64url characters (144 bits). */
export function newPassword(): string {
  return randomBytes(18).toString('base64url');
}

/** `count` random bytes from the OS CSPRNG (for formats that need raw bytes, e.g. certificate serials). */
export function newRandomBytes(count: number): Buffer {
  return randomBytes(count);
}

/** A uniformly distributed number in [0, 1) from the OS CSPRNG (53 random bits), for choices among equals. */
export function randomUnit(): number {
  return Number(randomBytes(8).readBigUInt64BE() >> 11n) / 2 ** 53;
}
