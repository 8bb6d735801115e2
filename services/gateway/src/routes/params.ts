import { DomainError, decodeId, encodeId, notFound } from "@argus/platform";
import type { PageRequest } from "@argus/proto/common/v1";

export interface SpaceListQuery {
  page: PageRequest;
  spaceId: string;
  spaceName: string;
  name: string;
}

/**
 * The filters every space-level list takes, as the public API names them: `space_id`,
 * `space_name` and a case-insensitive `name` substring. A `space_id` that cannot name a space
 * matches nothing, exactly like the id of a space that does not exist: `null` then.
 */
export function spaceListQuery(req: {
  page: PageRequest;
  query: { space_id?: string; space_name?: string; name?: string };
}): SpaceListQuery | null {
  const raw = req.query.space_id;
  const spaceId = raw === undefined ? "" : decodeId("Space", raw);
  if (spaceId === null) return null;
  return {
    page: req.page,
    spaceId,
    spaceName: req.query.space_name ?? "",
    name: req.query.name ?? "",
  };
}

/** A request with the path parameter `name`: for helpers shared by a resource's operations. */
export interface PathParam<Name extends string> {
  params: Record<Name, string>;
}

/** The uuid inside a path id of the given type; garbage or another type is a 404, like an unknown id. */
export function pathId(type: string, raw: string | undefined, what: string): string {
  const id = decodeId(type, raw ?? "");
  if (id === null) throw notFound(what);
  return id;
}

/** A membership's body as the public API sends it: the user, and a predefined or custom role. */
interface MemberBody {
  user_id: string;
  role: { type: "PREDEFINED"; name: string } | { type: "CUSTOM"; id: string };
}

/** The user and role of an organization's or a space's new member; ids that name nothing: 422. */
export function memberOf(body: MemberBody): {
  userId: string;
  roleName: string;
  customRoleId: string;
} {
  const userId = decodeId("User", body.user_id);
  if (userId === null) throw new DomainError("unprocessable-entity", "user_id is not a user id");
  if (body.role.type === "PREDEFINED")
    return { userId, roleName: body.role.name, customRoleId: "" };
  const customRoleId = decodeId("Role", body.role.id);
  if (customRoleId === null)
    throw new DomainError("unprocessable-entity", "role.id is not a role id");
  return { userId, roleName: "", customRoleId };
}

/** A member's role as the public API answers it: memberOf's role, the other way. */
export const publicMemberRole = (m: {
  roleName: string;
  customRoleId: string;
  customRoleName: string;
}) =>
  m.roleName
    ? { type: "PREDEFINED" as const, name: m.roleName }
    : { type: "CUSTOM" as const, id: encodeId("Role", m.customRoleId), name: m.customRoleName };

/**
 * `2024-01-01T00:00:00[.fraction][Z|±hh[:mm]]`, the shapes the schema's `iso-date-time` lets
 * through (the Python SDK sends `datetime.isoformat()`, which has no offset for a naive time).
 */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/** An instant as RFC 3339 UTC text for the service, and a key that sorts as the instants do. */
interface Instant {
  text: string;
  key: string;
}

/**
 * An ISO 8601 date-time as RFC 3339 UTC, without losing its sub-millisecond digits (OTLP times
 * are nanoseconds, and the window's bounds are inclusive). No offset means UTC. Digits past
 * nanoseconds are dropped. The schema has already checked the calendar; a leap second is the
 * next minute's first.
 */
export function utcInstant(value: string, field: string): Instant {
  const m = ISO_DATE_TIME.exec(value);
  if (!m) throw new DomainError("invalid-request", `'${field}' must be an ISO 8601 date-time`);
  const [, y, mo, d, h, mi, s, fraction = "", sign, oh = "0", om = "0"] = m;
  const offsetMinutes = (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const at = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter reads years 0-99 as 1900-1999.
  at.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  at.setUTCHours(Number(h), Number(mi) - offsetMinutes, Number(s), 0);
  // Years 1-9999 UTC, what RFC 3339 text holds and what the clients' datetimes read back.
  const year = at.getUTCFullYear();
  if (!(year >= 1 && year <= 9999)) {
    throw new DomainError("invalid-request", `'${field}' must be in the years 0001-9999 (UTC)`);
  }
  const seconds = at.toISOString().slice(0, 19);
  const digits = fraction.slice(0, 9);
  return {
    text: `${seconds}${digits ? `.${digits}` : ""}Z`,
    key: `${seconds}.${digits.padEnd(9, "0")}`,
  };
}

/**
 * An instant a request names (its `field`), as RFC 3339 UTC text for the service; "" when it
 * names none. ISO 8601 without an offset is UTC: the Python SDK writes a naive datetime so
 * (`isoformat()`), and a service must not read it in its own time zone or store it as sent.
 */
export const utcText = (value: string | undefined, field: string): string =>
  value === undefined || value === "" ? "" : utcInstant(value, field).text;
