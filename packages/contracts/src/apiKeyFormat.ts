import { crc32 } from "node:zlib";

/**
 * Argus keys look like GitHub tokens: a fixed prefix that secret scanners can match, a
 * random part, and a checksum of the random part, so a scanner can tell a real key from
 * look-alike text without asking the server: `ak-argus-<40 base62><6 base62 CRC32>`.
 */
export const ARGUS_KEY_PREFIX = "ak-argus-";
export const RANDOM_CHARS = 40; // 40 base62 characters ≈ 238 bits of entropy
const CHECKSUM_CHARS = 6; // 62^6 > 2^32: any CRC32 fits
export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const WELL_FORMED = new RegExp(
  `^${ARGUS_KEY_PREFIX}([0-9A-Za-z]{${RANDOM_CHARS}})([0-9A-Za-z]{${CHECKSUM_CHARS}})$`,
);

function base62(n: number, width: number): string {
  let out = "";
  for (let v = n; v > 0; v = Math.floor(v / 62)) out = BASE62[v % 62] + out;
  return out.padStart(width, "0");
}

const checksum = (random: string): string => base62(crc32(random), CHECKSUM_CHARS);

/** The key made of `random` (RANDOM_CHARS base62 characters). */
export const argusKeyOf = (random: string): string =>
  `${ARGUS_KEY_PREFIX}${random}${checksum(random)}`;

/** Whether `raw` has the shape and checksum of an Argus key (for leak scanning; not auth). */
export function isWellFormedArgusKey(raw: string): boolean {
  const m = WELL_FORMED.exec(raw);
  return m !== null && checksum(m[1]!) === m[2];
}

/** Longest API key accepted anywhere: it travels in an Authorization header. */
export const API_KEY_MAX_CHARS = 512;
// Printable ASCII without edge spaces: what an operator may choose as the initial key.
const PRINTABLE = /^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/;

/**
 * Whether `raw` could be a key at all, decided offline (the gateway asks before calling
 * identity): printable ASCII of at most API_KEY_MAX_CHARS characters and, when it claims the
 * Argus prefix, well formed with a matching checksum. Caller-chosen keys (the initial admin's)
 * need not have the Argus format. Not authentication: a plausible key may still be unknown.
 */
export function isPlausibleApiKey(raw: string): boolean {
  if (raw.length > API_KEY_MAX_CHARS || !PRINTABLE.test(raw)) return false;
  return !raw.startsWith(ARGUS_KEY_PREFIX) || isWellFormedArgusKey(raw);
}

/** What listings show of a key: the prefix and the last four characters (ARCHITECTURE §8). */
export function redactArgusKey(raw: string): string {
  return `${ARGUS_KEY_PREFIX}…${raw.slice(-4)}`;
}

/** What a listing shows of a caller-chosen key (headless initialization's): 6 first, 4 last. */
export function redactApiKey(raw: string): string {
  return `${raw.slice(0, 6)}…${raw.slice(-4)}`;
}
