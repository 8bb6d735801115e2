import { hasSpacePermission, isAccountAdmin, type SpaceFacts } from "@argus/platform";
import type { Principal } from "@argus/proto/common/v1";

/** Who may see and act on a key (spec endpoints 3 and 4), as pure functions of what was loaded. */

export interface KeyFacts {
  keyType: "USER" | "SERVICE";
  accountId: string;
  createdByUserId: string;
  /** SERVICE keys: the spaces the key's service account is bound to. */
  boundSpaces: readonly SpaceFacts[];
}

/** The caller's space-admin spaces among the key's bound spaces (loaded from role bindings). */
export type AdminSpaces = ReadonlySet<string>;

const everyBound = (k: KeyFacts, ok: (space: SpaceFacts) => boolean): boolean =>
  k.boundSpaces.length > 0 && k.boundSpaces.every(ok);

const isCreator = (p: Principal, k: KeyFacts): boolean =>
  p.userId !== "" && p.userId === k.createdByUserId;

/** Read access decides between 403 and 404: without it the key's existence stays hidden. */
export function canReadKey(p: Principal, k: KeyFacts, adminSpaces: AdminSpaces): boolean {
  if (p.accountId !== k.accountId) return false;
  if (isAccountAdmin(p) || isCreator(p, k)) return true;
  if (k.keyType === "USER") return false;
  return k.boundSpaces.some(
    (s) => adminSpaces.has(s.id) || hasSpacePermission(p, s, "SERVICE_KEY_READ"),
  );
}

/** Spec endpoint 4, rules 3 and 4. */
export function canRevokeKey(p: Principal, k: KeyFacts, adminSpaces: AdminSpaces): boolean {
  if (isAccountAdmin(p)) return true;
  if (k.keyType === "USER") return isCreator(p, k);
  if (everyBound(k, (s) => adminSpaces.has(s.id))) return true;
  return isCreator(p, k) && everyBound(k, (s) => hasSpacePermission(p, s, "SERVICE_KEY_REVOKE"));
}

/** The public API's refresh rule: like revoke, with SERVICE_KEY_CREATE for non-admin creators. */
export function canRefreshKey(p: Principal, k: KeyFacts, adminSpaces: AdminSpaces): boolean {
  if (isAccountAdmin(p)) return true;
  if (k.keyType === "USER") return isCreator(p, k);
  if (everyBound(k, (s) => adminSpaces.has(s.id))) return true;
  return isCreator(p, k) && everyBound(k, (s) => hasSpacePermission(p, s, "SERVICE_KEY_CREATE"));
}
