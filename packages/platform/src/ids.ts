import { randomBytes } from "node:crypto";

/** RFC 9562 UUID version 7: time-ordered, so ids sort by creation and index well. */
export function uuidv7(now: number = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Public ids are standard base64 of `<Type>:<uuid>` (ARCHITECTURE §10). */
export function encodeId(type: string, uuid: string): string {
  return Buffer.from(`${type}:${uuid}`, "utf8").toString("base64");
}

/** The uuid inside a public id of the given type, or null for garbage or another type. */
export function decodeId(type: string, id: string): string | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(id) || id.length % 4 !== 0) return null;
  const text = Buffer.from(id, "base64").toString("utf8");
  const prefix = `${type}:`;
  if (!text.startsWith(prefix)) return null;
  const uuid = text.slice(prefix.length);
  return UUID.test(uuid) ? uuid : null;
}
