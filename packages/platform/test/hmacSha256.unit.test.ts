import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hmacSha256Under } from "../src/hmacSha256.ts";

const nodes = (key: Uint8Array, text: string) =>
  createHmac("sha256", key).update(text).digest("base64url");

/** A string of `length` code units drawn from `alphabet`. */
const drawn = (alphabet: readonly string[], length: number) =>
  Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");

const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
// Two-, three- and four-byte UTF-8, and a lone surrogate (written as U+FFFD by both).
const wide = [...ascii, "é", "ß", "€", "中", "😀", "\ud800", "\u0000"];

describe("hmacSha256Under", () => {
  it("answers RFC 4231's test case 2", () => {
    const mac = hmacSha256Under(Buffer.from("Jefe"));
    expect(Buffer.from(mac("what do ya want for nothing?"), "base64url").toString("hex")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  // Every length across the one- and two-block paddings (55/56 bytes, 119/120) and beyond.
  it.each([0, 1, 16, 32, 64, 65, 131])("equals node:crypto under a key of %i bytes", (n) => {
    const key = randomBytes(n);
    const mac = hmacSha256Under(key);
    for (let length = 0; length <= 300; length++) {
      const text = drawn(ascii, length);
      expect(mac(text), `length ${length}`).toBe(nodes(key, text));
    }
  });

  it("equals node:crypto on text that is not ASCII", () => {
    const key = randomBytes(32);
    const mac = hmacSha256Under(key);
    for (let i = 0; i < 500; i++) {
      const text = drawn(wide, i % 150);
      expect(mac(text), JSON.stringify(text)).toBe(nodes(key, text));
    }
  });

  it("keeps each key's states apart, and a long text does not spill into the next", () => {
    const [a, b] = [randomBytes(32), randomBytes(32)];
    const [macA, macB] = [hmacSha256Under(a), hmacSha256Under(b)];
    const long = drawn(wide, 5000);
    expect(macA(long)).toBe(nodes(a, long));
    expect(macB("ak_short")).toBe(nodes(b, "ak_short"));
    expect(macA("ak_short")).toBe(nodes(a, "ak_short"));
    expect(macA("ak_short")).not.toBe(macB("ak_short"));
  });
});
