import { randomBytes } from "node:crypto";

/** A name safe for JetStream streams, consumers and subject tokens: only [A-Za-z0-9_-]. */
export function uniqueName(prefix: string): string {
  const safe = prefix.replace(/[^A-Za-z0-9_-]/g, "_");
  const separator = safe === "" || /[_-]$/.test(safe) ? "" : "_";
  return `${safe}${separator}${randomBytes(6).toString("hex")}`;
}
