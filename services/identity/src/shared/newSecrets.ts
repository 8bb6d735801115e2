import { randomBytes } from "node:crypto";
import { BASE62, RANDOM_CHARS, argusKeyOf } from "../apiKeys/apiKeyFormat.ts";

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

/** A new Argus key (the raw secret, returned once). */
export const generateArgusKey = (): string => argusKeyOf(randomBase62(RANDOM_CHARS));

/**
 * An invitation's verification token: random, e-mailed to the invitee (delivery is outside
 * Argus), stored only as its HMAC under the pepper like API keys. Never in events, logs or
 * responses.
 */
export const newInvitationToken = (): string => randomBytes(32).toString("base64url");

/**
 * A temporary password (create_user with invite_mode TEMPORARY_PASSWORD): 24 base62
 * characters (~143 bits), answered once and stored only as its HMAC under the pepper.
 */
export const newTemporaryPassword = (): string => randomBase62(24);
