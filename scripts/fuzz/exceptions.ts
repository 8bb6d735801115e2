import { readFileSync } from "node:fs";

/** The Schemathesis 4.32 checks an exception may switch off for one operation. */
const CHECKS = new Set([
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
  "negative_data_rejection",
  "positive_data_acceptance",
  "missing_required_header",
  "unsupported_method",
  "allow_header_conformance",
  "use_after_free",
  "ensure_resource_availability",
  "ignored_auth",
  "object_level_authorization",
]);
const METHODS = new Set(["GET", "PUT", "POST", "DELETE", "PATCH"]);

export interface KnownException {
  check: string;
  /** Schemathesis's operation label, e.g. `GET /v2/tags/{tag_id}`. */
  operation: string;
  reason: string;
}

/**
 * `<check> <METHOD> <path> <reason…>`, one per line; `#` starts a comment. A line without a
 * reason is refused: an exception nobody can explain is a failure someone stopped looking at.
 */
export function readKnownExceptions(file: string): KnownException[] {
  const out: KnownException[] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((raw, i) => {
      const line = raw.replace(/#.*$/, "").trim();
      if (!line) return;
      const [check = "", method = "", path = "", ...reason] = line.split(/\s+/);
      const where = `${file}:${i + 1}`;
      if (!CHECKS.has(check)) throw new Error(`${where}: unknown check "${check}"`);
      if (!METHODS.has(method) || !/^\/v[12]\//.test(path))
        throw new Error(`${where}: expected "<check> <METHOD> /v2/<path> <reason>" (or /v1/)`);
      if (reason.length === 0) throw new Error(`${where}: the reason is missing`);
      out.push({ check, operation: `${method} ${path}`, reason: reason.join(" ") });
    });
  return out;
}

/** Schemathesis `[[operations]]` tables switching the excepted checks off, one per operation. */
export function exceptionsToml(exceptions: KnownException[]): string {
  const byOperation = new Map<string, string[]>();
  for (const e of exceptions)
    byOperation.set(e.operation, [...(byOperation.get(e.operation) ?? []), e.check]);
  return [...byOperation]
    .map(
      ([operation, checks]) =>
        `[[operations]]\ninclude-name = ${JSON.stringify(operation)}\n` +
        checks.map((c) => `checks.${c}.enabled = false\n`).join(""),
    )
    .join("\n");
}
