import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Secrets a service must use again, and so cannot hash (an AI provider's API key, the header
 * values of an integration endpoint), encrypted at rest: AES-256-GCM under a key derived from
 * the service's `ARGUS_SECRETS_KEY`, bound to what they belong to (the additional data), so a
 * sealed value copied onto another row does not open there.
 *
 * Sealed text is `v1.<key id>.<base64url of iv, tag and ciphertext>`. The key id (a digest of
 * the key, not the key) says which key sealed it: after a rotation the previous key still
 * opens what it sealed, and values are sealed again under the new one when next written.
 */
export interface SecretBox {
  seal(plain: string, boundTo: string): string;
  /** The plain text; a value stored before sealing existed (not in the sealed form) as it is. */
  open(stored: string, boundTo: string): string;
}

const SEALED = /^v1\.([0-9a-f]{16})\.([A-Za-z0-9_-]+)$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  bytes: Buffer;
}

const keyOf = (secret: string): Key => ({
  id: createHash("sha256")
    .update(`argus-sealed-secrets-key-id\0${secret}`)
    .digest("hex")
    .slice(0, 16),
  bytes: createHash("sha256").update(`argus-sealed-secrets\0${secret}`).digest(),
});

export class UnopenableSecretError extends Error {
  override readonly name = "UnopenableSecretError";
}

export function secretBox(current: string, previous?: string): SecretBox {
  const sealing = keyOf(current);
  const keys = new Map([sealing, ...(previous ? [keyOf(previous)] : [])].map((k) => [k.id, k]));
  return {
    seal(plain, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", sealing.bytes, iv);
      cipher.setAAD(Buffer.from(boundTo, "utf8"));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
      return `v1.${sealing.id}.${sealed}`;
    },
    open(stored, boundTo) {
      const m = SEALED.exec(stored);
      if (!m) return stored;
      const key = keys.get(m[1]!);
      if (!key) {
        throw new UnopenableSecretError(
          "the secret was sealed under a key this process does not hold (ARGUS_SECRETS_KEY " +
            "changed without the old one as ARGUS_SECRETS_KEY_PREVIOUS?)",
        );
      }
      const raw = Buffer.from(m[2]!, "base64url");
      try {
        const decipher = createDecipheriv(
          "aes-256-gcm",
          key.bytes,
          raw.subarray(0, IV_BYTES),
        ).setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        decipher.setAAD(Buffer.from(boundTo, "utf8"));
        return Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString("utf8");
      } catch (err) {
        throw new UnopenableSecretError("the sealed secret does not open here (altered or moved)", {
          cause: err,
        });
      }
    },
  };
}
