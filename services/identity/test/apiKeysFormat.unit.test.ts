import { describe, expect, it } from "vitest";
import { generateArgusKey } from "../src/shared/newSecrets.ts";
import { ARGUS_KEY_PREFIX, isWellFormedArgusKey } from "../src/apiKeys/apiKeyFormat.ts";

describe("Argus key format", () => {
  it("generates keys with the prefix that pass their own checksum", () => {
    const keys = Array.from({ length: 200 }, generateArgusKey);
    for (const k of keys) {
      expect(k.startsWith(ARGUS_KEY_PREFIX)).toBe(true);
      expect(k).toHaveLength(ARGUS_KEY_PREFIX.length + 46);
      expect(isWellFormedArgusKey(k)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("rejects a key with one character of the random part changed", () => {
    const k = generateArgusKey();
    const i = ARGUS_KEY_PREFIX.length + 5;
    const swapped = k.slice(0, i) + (k[i] === "a" ? "b" : "a") + k.slice(i + 1);
    expect(isWellFormedArgusKey(swapped)).toBe(false);
  });

  it("rejects a changed checksum, a wrong prefix, a wrong length and other alphabets", () => {
    const k = generateArgusKey();
    const last = k.at(-1) === "0" ? "1" : "0";
    expect(isWellFormedArgusKey(k.slice(0, -1) + last)).toBe(false);
    expect(isWellFormedArgusKey(k.replace(ARGUS_KEY_PREFIX, "ak-argos-"))).toBe(false);
    expect(isWellFormedArgusKey(k.slice(0, -2))).toBe(false);
    expect(isWellFormedArgusKey(`${k}0`)).toBe(false);
    expect(isWellFormedArgusKey(k.replace(/.$/, "-"))).toBe(false);
    expect(isWellFormedArgusKey("")).toBe(false);
    expect(isWellFormedArgusKey("ak-test-abcdef")).toBe(false);
  });
});
