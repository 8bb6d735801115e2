import { randomUUID } from "node:crypto";

/**
 * RFC 9562 UUID version 7: time-ordered, so ids sort by creation and index well. Its 74 random
 * bits are a version-4 uuid's (randomUUID draws from a cached pool of entropy, where
 * randomBytes asks OpenSSL for every id): the 12 after its version digit, and its variant with
 * the 62 after it.
 */
export function uuidv7(now: number = Date.now()): string {
  const random = randomUUID();
  const ms = now.toString(16).padStart(12, "0");
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}

const UUID_LENGTH = 36;
/** A uuid's 36 ASCII characters are 12 whole base64 groups: 48 characters, never padded. */
const UUID_BASE64_LENGTH = 48;

/**
 * Per byte: 1 for a lowercase hex digit, 2 for an uppercase one (A-F), 0 otherwise. A uuid's
 * dashes are checked by place.
 */
const HEX = new Uint8Array(256);
for (const c of "0123456789abcdef") HEX[c.charCodeAt(0)] = 1;
for (const c of "ABCDEF") HEX[c.charCodeAt(0)] = 2;
const DASH = 0x2d;
const isDashAt = (o: number) => o === 8 || o === 13 || o === 18 || o === 23;

function uuidShaped(text: string, anyCase: boolean): boolean {
  if (text.length !== UUID_LENGTH) return false;
  for (let o = 0; o < UUID_LENGTH; o++) {
    const c = text.charCodeAt(o);
    if (isDashAt(o) ? c !== DASH : c > 0xff || HEX[c] === 0 || (HEX[c] === 2 && !anyCase))
      return false;
  }
  return true;
}

/**
 * Whether `text` is a uuid as Argus writes them (lowercase, dashed): ids that cannot be a
 * resource id are simply not found, never a query error. Bulk requests check ids by the
 * thousand, hence a loop over character codes rather than a regex.
 */
export const isUuid = (text: string): boolean => uuidShaped(text, false);

/**
 * What each character of a list of uuids joined by "," must be, by its place in its uuid's 37
 * (the 37th the comma): 1 a lowercase hex digit, 3 a dash, 4 the comma. HEX's codes, with
 * the dash and the comma added; every character outside Latin-1 is 0.
 */
const LIST_CLASS = new Uint8Array(0x10000);
LIST_CLASS.set(HEX.map((h) => (h === 1 ? 1 : 0)));
LIST_CLASS[DASH] = 3;
LIST_CLASS[0x2c] = 4;
const LIST_PLACE = Uint8Array.from({ length: UUID_LENGTH + 1 }, (_, o) =>
  o === UUID_LENGTH ? 4 : isDashAt(o) ? 3 : 1,
);

/**
 * Whether `text` is one or more uuids as Argus writes them, joined by ",": a bulk request's
 * thousand ids checked in one pass, one table lookup per character (~70 µs per 1000, where a
 * compiled pattern took ~150 µs and checking each id alone more).
 */
export function isUuidList(text: string): boolean {
  const n = text.length;
  if (n === 0 || (n + 1) % (UUID_LENGTH + 1) !== 0) return false;
  for (let i = 0, o = 0; i < n; i++) {
    if (LIST_CLASS[text.charCodeAt(i)] !== LIST_PLACE[o]) return false;
    if (++o > UUID_LENGTH) o = 0;
  }
  return true;
}

/** Whether `text` is a dashed uuid in either case, as Postgres reads one. */
export const isUuidAnyCase = (text: string): boolean => uuidShaped(text, true);

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Each ASCII code's base64 value, -1 for a character outside the alphabet ('=' included). */
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/**
 * The base64 of `<Type>:` when it is whole groups (its length a multiple of 3, e.g.
 * "DatasetExample:"), else null. Such a prefix encodes alone: an id of the type is this
 * prefix followed by the 48 characters of the uuid's 12 groups, and each uuid has exactly one
 * spelling (no padding, no unused bits).
 */
const alignedPrefixes = new Map<string, string | null>();
function alignedPrefix(type: string): string | null {
  let prefix = alignedPrefixes.get(type);
  if (prefix === undefined) {
    const text = `${type}:`;
    prefix = text.length % 3 === 0 ? Buffer.from(text, "utf8").toString("base64") : null;
    alignedPrefixes.set(type, prefix);
  }
  return prefix;
}

/**
 * The uuid of an aligned type's id read straight from its characters (null when they do not
 * spell one), or undefined when the type is not aligned or `id` does not start with its prefix.
 */
function alignedUuid(type: string, id: string): string | null | undefined {
  const prefix = alignedPrefix(type);
  return prefix !== null &&
    id.length === prefix.length + UUID_BASE64_LENGTH &&
    id.startsWith(prefix)
    ? uuidAfter(id, prefix.length)
    : undefined;
}

/** Public ids are standard base64 of `<Type>:<uuid>` (ARCHITECTURE §10). */
export function encodeId(type: string, uuid: string): string {
  return Buffer.from(`${type}:${uuid}`, "utf8").toString("base64");
}

/**
 * encodeId computed by Postgres over a uuid-valued SQL expression, for answers built in SQL.
 * Postgres' `encode(…, 'base64')` breaks lines after 76 characters (57 bytes), so a type name
 * longer than 20 characters would not spell the same id; it is refused here, once.
 */
export function publicIdSql(type: string, uuid: string): string {
  if (!/^[A-Za-z]{1,20}$/.test(type))
    throw new Error(`publicIdSql: type ${type} cannot be encoded`);
  return `encode(convert_to('${type}:' || (${uuid})::text, 'UTF8'), 'base64')`;
}

/** One scratch array for the uuid's character codes: decoding is synchronous. */
const codes = new Array<number>(UUID_LENGTH);

/**
 * The uuid spelled by the 48 base64 characters of `id` after `at`, or null when they are not
 * all of the alphabet or do not spell a lowercase uuid. Bulk requests check public ids by the
 * thousand: decoded here, 4 characters to 3 bytes, each checked as it comes, it costs about
 * a third of a Buffer's base64 decoding and a regex over its text.
 */
function uuidAfter(id: string, at: number): string | null {
  for (let i = at, o = 0; o < UUID_LENGTH; i += 4) {
    const a = id.charCodeAt(i);
    const b = id.charCodeAt(i + 1);
    const c = id.charCodeAt(i + 2);
    const d = id.charCodeAt(i + 3);
    if ((a | b | c | d) > 0x7f) return null;
    const va = VALUE[a]!;
    const vb = VALUE[b]!;
    const vc = VALUE[c]!;
    const vd = VALUE[d]!;
    if ((va | vb | vc | vd) < 0) return null;
    const n = (va << 18) | (vb << 12) | (vc << 6) | vd;
    if (!put(o++, n >>> 16) || !put(o++, (n >>> 8) & 0xff) || !put(o++, n & 0xff)) return null;
  }
  return String.fromCharCode(...codes);
}

/** Byte `o` of a uuid's text, if it may stand there: a dash at 8, 13, 18 and 23, else hex. */
function put(o: number, byte: number): boolean {
  if (isDashAt(o) ? byte !== DASH : HEX[byte] !== 1) return false;
  codes[o] = byte;
  return true;
}

/** The uuid inside a public id of the given type, or null for garbage or another type. */
export function decodeId(type: string, id: string): string | null {
  const aligned = alignedUuid(type, id);
  if (aligned !== undefined) return aligned;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(id) || id.length % 4 !== 0) return null;
  const text = Buffer.from(id, "base64").toString("utf8");
  const prefixText = `${type}:`;
  if (!text.startsWith(prefixText)) return null;
  const uuid = text.slice(prefixText.length);
  return isUuid(uuid) ? uuid : null;
}

/**
 * The uuid of a public id only in the spelling the API gives out, else null: base64 decoders
 * also accept other spellings (unused bits set), and two distinct public ids must never name
 * the same resource. An aligned type's id (`alignedPrefix`) has one spelling per uuid, so it
 * is not encoded again to compare.
 */
export function decodeCanonicalId(type: string, id: string): string | null {
  const aligned = alignedUuid(type, id);
  if (aligned !== undefined) return aligned;
  const uuid = decodeId(type, id);
  return uuid !== null && encodeId(type, uuid) === id ? uuid : null;
}

/**
 * The uuids inside public ids of one type, in order, joined by ","; "" for each id that names
 * none (as `decodeCanonicalId` reads them). A bulk request's ids of an aligned type are decoded
 * all at once: ~0.45 ms for a PATCH's thousand one by one, about a third of that together.
 */
export function joinedUuidsOf(type: string, ids: readonly string[]): string {
  return (
    alignedUuidsJoined(type, ids) ?? ids.map((id) => decodeCanonicalId(type, id) ?? "").join(",")
  );
}

/**
 * `joinedUuidsOf` when every id is an aligned type's, spelled canonically, and names a uuid;
 * else null (they are then decoded one by one). Buffer decodes them together: each id is the
 * prefix's whole groups and the uuid's twelve, so their texts follow one another in its bytes.
 */
function alignedUuidsJoined(type: string, ids: readonly string[]): string | null {
  const prefix = alignedPrefix(type);
  if (prefix === null || ids.length === 0) return null;
  const length = prefix.length + UUID_BASE64_LENGTH;
  for (const id of ids) if (id.length !== length || !id.startsWith(prefix)) return null;
  // Buffer's decoder skips what is in no base64 alphabet and stops at "=": fewer bytes than
  // whole ids make. It also reads base64url's "-" and "_" as 62 and 63, but no uuid's text
  // has a group that encodes to either: what they decode to is refused as no uuid below.
  const decoded = Buffer.from(ids.join(""), "base64").toString("latin1");
  const record = (prefix.length / 4) * 3 + UUID_LENGTH;
  if (decoded.length !== ids.length * record) return null;
  const uuids = new Array<string>(ids.length);
  for (let i = 0, at = record - UUID_LENGTH; i < ids.length; i++, at += record)
    uuids[i] = decoded.slice(at, at + UUID_LENGTH);
  // Each text sits at its place in the joined one: the pattern checks each is a uuid.
  const joined = uuids.join(",");
  return isUuidList(joined) ? joined : null;
}
