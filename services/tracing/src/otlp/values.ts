import type { AnyValue, KeyValue } from "@argus/proto/otlp/common/v1/common";
import type { JsonValue } from "../spans/spanRecord.ts";
import { MAX_ATTRIBUTE_STRING_LENGTH } from "./limits.ts";

// Postgres text and jsonb cannot hold U+0000 or unpaired surrogates, so both become U+FFFD.
export function storable(s: string): string {
  const wellFormed = s.isWellFormed() ? s : s.toWellFormed();
  return wellFormed.includes("\u0000") ? wellFormed.replaceAll("\u0000", "\uFFFD") : wellFormed;
}

/**
 * Attributes as one object by key: the last value of a repeated key wins, and at most `limit`
 * distinct keys are kept (the first seen). Built with Object.fromEntries so that a key such as
 * "__proto__" stays an ordinary property.
 */
export function attributeObject(
  attributes: readonly KeyValue[],
  limit: number,
): Record<string, JsonValue> {
  const byKey = new Map<string, JsonValue>();
  for (const { key, value } of attributes) {
    const k = storable(key);
    if (byKey.size >= limit && !byKey.has(k)) continue;
    byKey.set(k, jsonValue(value));
  }
  return Object.fromEntries(byKey);
}

/** An OTLP AnyValue as JSON; what JSON cannot carry exactly (large ints, NaN, bytes) as text. */
function jsonValue(value: AnyValue | undefined): JsonValue {
  const v = value?.value;
  if (v === undefined) return null;
  switch (v.$case) {
    case "stringValue":
      return storable(truncated(v.value));
    case "boolValue":
      return v.value;
    case "intValue": {
      const n = Number(v.value);
      return Number.isSafeInteger(n) ? n : v.value.toString();
    }
    case "doubleValue":
      // JSON has no NaN or infinities: String() spells them "NaN", "Infinity", "-Infinity".
      return Number.isFinite(v.value) ? v.value : String(v.value);
    case "arrayValue":
      return v.value.values.map(jsonValue);
    case "kvlistValue":
      return attributeObject(v.value.values, Number.POSITIVE_INFINITY);
    case "bytesValue":
      return Buffer.from(v.value.buffer, v.value.byteOffset, v.value.byteLength).toString("base64");
    case "stringValueStrindex":
      // Profiling-only; OTLP says other signals treat it as absent.
      return null;
  }
}

function truncated(s: string): string {
  if (s.length <= MAX_ATTRIBUTE_STRING_LENGTH) return s;
  const last = s.charCodeAt(MAX_ATTRIBUTE_STRING_LENGTH - 1);
  // Never cut between the halves of a surrogate pair.
  const end =
    last >= 0xd800 && last <= 0xdbff
      ? MAX_ATTRIBUTE_STRING_LENGTH - 1
      : MAX_ATTRIBUTE_STRING_LENGTH;
  return s.slice(0, end);
}
