import type { ApiKeyRefreshed } from "@argus/contracts";
import { DomainError } from "@argus/platform";

const GRACE_PERIOD_MAX_SECONDS = 86_400;

/** The API key decider's refresh command: `refreshedKey` makes its event. */
export interface RefreshKey {
  type: "RefreshKey";
  /** null: keep the key unbounded. */
  expiresAt: Date | null;
  gracePeriodSeconds: number;
  redactedKey: string;
  now: Date;
}

const invalid = (detail: string) => new DomainError("unprocessable-entity", detail);

/** The rules of a refresh (the public API's), for an ACTIVE key expiring at `key.expiresAt`. */
export function refreshedKey(
  c: RefreshKey,
  key: { id: string; expiresAt: Date | null },
): ApiKeyRefreshed {
  const now = c.now.getTime();
  const current = key.expiresAt;
  if (current && current.getTime() <= now) throw invalid("an expired API key cannot be refreshed");
  if (current && !c.expiresAt)
    throw invalid(
      "expires_at is required when the key has an expiry (omitting it would make the key unbounded)",
    );
  if (c.expiresAt && c.expiresAt.getTime() <= now)
    throw invalid("expires_at must be in the future");
  if (current && c.expiresAt && c.expiresAt > current)
    throw invalid(
      "expires_at must not be later than the key's current expiry; create a new key instead",
    );
  const grace = c.gracePeriodSeconds;
  if (!Number.isInteger(grace) || grace < 0 || grace > GRACE_PERIOD_MAX_SECONDS)
    throw invalid(`grace_period_seconds must be an integer from 0 to ${GRACE_PERIOD_MAX_SECONDS}`);
  // The old secret lives on for the grace period, but never past the key's own expiry.
  let graceUntil: Date | null = grace > 0 ? new Date(now + grace * 1000) : null;
  if (graceUntil && current && current < graceUntil) graceUntil = current;
  return {
    type: "ApiKeyRefreshed",
    data: {
      id: key.id,
      redacted_key: c.redactedKey,
      expires_at: c.expiresAt?.toISOString() ?? null,
      previous_secret_valid_until: graceUntil?.toISOString() ?? null,
      refreshed_at: c.now.toISOString(),
    },
  };
}
