import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/**
 * Argus keys look like GitHub tokens: a fixed prefix that secret scanners can match, a
 * random part, and a checksum of the random part, so a scanner can tell a real key from
 * look-alike text without asking the server: `ak-argus-<40 base62><6 base62 CRC32>`.
 */
export const ARGUS_KEY_PREFIX = "ak-argus-";
const RANDOM_CHARS = 40; // 40 base62 characters ≈ 238 bits of entropy
const CHECKSUM_CHARS = 6; // 62^6 > 2^32: any CRC32 fits
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const WELL_FORMED = new RegExp(
  `^${ARGUS_KEY_PREFIX}([0-9A-Za-z]{${RANDOM_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`,
);

function base62(n: number, width: number): string {
  let out = "";
  for (let v = n; v > 0; v = Math.floor(v / 62)) out = BASE62[v % 62] + out;
  return out.padStart(width, "0");
}

function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_CHARS);
}

function randomBase62(length: number): string {
  let out = "";
  // Rejection sampling keeps every character uniform (248 = 4 * 62).
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export function generateArgusKey(): string {
  const random = randomBase62(RANDOM_CHARS);
  return `${ARGUS_KEY_PREFIX}${random}${checksum(random)}`;
}

/** Whether `raw` has the shape and checksum of an Argus key (for leak scanning; not auth). */
export function isWellFormedArgusKey(raw: string): boolean {
  const m = WELL_FORMED.exec(raw);
  return m !== null && checksum(m[1]!) === m[2];
}

/** What listings show of a key: the prefix and the last four characters (ARCHITECTURE §8). */
export function redactArgusKey(raw: string): string {
  return `${ARGUS_KEY_PREFIX}…${raw.slice(-4)}`;
}
