import { createHmac, timingSafeEqual } from "node:crypto";
import { secretKeyOf } from "@argus/platform";

/** Keys and invitation tokens are stored only as HMAC-SHA-256 under a pepper (ARCHITECTURE §8). */
export function hashApiKey(raw: string, pepper: string): Buffer {
  return createHmac("sha256", secretKeyOf(pepper)).update(raw, "utf8").digest();
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
