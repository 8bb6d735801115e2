import { createSecretKey, type KeyObject } from "node:crypto";

const keys = new Map<string, KeyObject>();

/**
 * The secret as a KeyObject, made once per secret: createHmac with a string or Buffer key
 * rebuilds one on every call, which profiled at about a tenth of the gateway's CPU per request
 * (bench/README.md, "Where the time goes"); with a KeyObject an HMAC costs ~1 µs.
 */
export function secretKeyOf(secret: string | Buffer): KeyObject {
  if (typeof secret !== "string") return createSecretKey(secret);
  let key = keys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, "utf8"));
    keys.set(secret, key);
  }
  return key;
}
