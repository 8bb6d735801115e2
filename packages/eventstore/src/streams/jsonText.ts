/**
 * Event data whose JSON text its producer already holds: a bulk write's 1000 examples arrive
 * as JSON texts, and serializing the objects parsed from them again cost the dataset service
 * ~9 ms of an 8 MiB create, and measuring that text's UTF-8 size ~8 ms more. The text (and its
 * size) is kept beside the object, with the same identity through every layer that passes
 * `data` on, and the append stores it instead of `JSON.stringify(data)`.
 */
export interface JsonText {
  text: string;
  /** `Buffer.byteLength(text)`. */
  bytes: number;
}

const texts = new WeakMap<object, JsonText>();

/**
 * `data`, with `text` to be stored for it. The caller vouches that `text` is JSON whose value
 * is `data` (what `JSON.parse(text)` gives deep-equals it) and that `bytes` is its UTF-8 size;
 * Postgres still parses it as `jsonb`.
 */
export function withJsonText<T extends object>(data: T, text: string, bytes: number): T {
  texts.set(data, { text, bytes });
  return data;
}

/** The JSON text stored for `data` and its size: its producer's (`withJsonText`) or made here. */
export function jsonTextOf(data: unknown): JsonText {
  const known = typeof data === "object" && data !== null ? texts.get(data) : undefined;
  if (known) return known;
  const text = JSON.stringify(data ?? null);
  return { text, bytes: Buffer.byteLength(text) };
}
