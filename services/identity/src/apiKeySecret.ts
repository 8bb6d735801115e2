import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Keys are stored only as HMAC-SHA-256 under a server-side pepper (ARCHITECTURE §8). */
export function hashApiKey(raw: string, pepper: string): Buffer {
  return createHmac("sha256", pepper).update(raw, "utf8").digest();
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a listing may show of a key: its first characters and last four. */
export function redactApiKey(raw: string): string {
  return `${raw.slice(0, 6)}…${raw.slice(-4)}`;
}

export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
