import { isPlausibleApiKey } from "@argus/contracts/apiKeyFormat";
import { type EnvVar, int, optionalSecret, secret, str } from "@argus/platform";

/** Identity's own environment variables (the common ones come from the service registry). */
export const identityConfigSpec = {
  ARGUS_API_KEY_PEPPER: secret("HMAC key under which API keys are hashed", 32),
  ARGUS_INIT_ORG_NAME: str(
    "organization created by headless initialization",
    "Default Organization",
  ),
  ARGUS_INIT_SPACE_NAME: str("space created by headless initialization", "Default Space"),
  ARGUS_INIT_ADMIN_EMAIL: str("e-mail of the initial admin user", "admin@argus.local"),
  ARGUS_INIT_ADMIN_NAME: str("name of the initial admin user", "Admin"),
  // Below the gateway's ARGUS_GRPC_DEADLINE_MS with room to spare: a command that changes
  // authorization may wait this long for a gateway that cannot confirm its invalidation.
  ARGUS_GATEWAY_LEASE_MS: int(
    "lease of a gateway's principal cache: a gateway that stops renewing is waited for at most this long",
    3_000,
    300,
    60_000,
  ),
  ARGUS_INIT_API_KEY: headerSafe(
    optionalSecret("raw USER API key of the initial admin; initialization runs only when set", 32),
  ),
};

/** The key travels in an Authorization header: printable ASCII, no edge spaces, at most 512. */
function headerSafe(v: EnvVar<string | undefined>): EnvVar<string | undefined> {
  return {
    ...v,
    parse: (raw) => {
      if (!/^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$/.test(raw) || raw.length > 512) {
        throw new Error(
          "must be printable ASCII without leading or trailing spaces, at most 512 characters",
        );
      }
      // The gateway refuses a key that claims the Argus format but fails its checksum.
      if (!isPlausibleApiKey(raw))
        throw new Error("starts with ak-argus- but is not a well-formed Argus key (checksum)");
      return v.parse(raw);
    },
  };
}
