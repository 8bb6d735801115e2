import { describe, expect, it } from "vitest";
import { secretBox, UnopenableSecretError } from "../src/sealedSecrets.ts";

const KEY = "k".repeat(32);
const NEXT = "n".repeat(32);

describe("secretBox", () => {
  it("seals to text that holds nothing of the secret, and opens it again where it belongs", () => {
    const box = secretBox(KEY);
    const sealed = box.seal("sk-live-0123456789", "ai_integration:1");
    expect(sealed).toMatch(/^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("0123456789");
    // A fresh iv each time: the same secret never seals to the same text.
    expect(box.seal("sk-live-0123456789", "ai_integration:1")).not.toBe(sealed);
    expect(box.open(sealed, "ai_integration:1")).toBe("sk-live-0123456789");
    expect(box.open(box.seal("", "x"), "x")).toBe("");
    expect(box.open(box.seal("ünïcødé ✓", "x"), "x")).toBe("ünïcødé ✓");
  });

  it("does not open on another row, altered, or under a key it was not sealed with", () => {
    const box = secretBox(KEY);
    const sealed = box.seal("secret", "ai_integration:1");
    expect(() => box.open(sealed, "ai_integration:2")).toThrow(UnopenableSecretError);
    const last = sealed.at(-2) === "A" ? "B" : "A";
    const altered = `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`;
    expect(() => box.open(altered, "ai_integration:1")).toThrow(UnopenableSecretError);
    expect(() => secretBox(NEXT).open(sealed, "ai_integration:1")).toThrow(/ARGUS_SECRETS_KEY/);
  });

  it("after a rotation opens what the previous key sealed, and seals under the new one", () => {
    const old = secretBox(KEY).seal("secret", "b");
    const rotated = secretBox(NEXT, KEY);
    expect(rotated.open(old, "b")).toBe("secret");
    const again = rotated.seal("secret", "b");
    expect(again.split(".")[1]).not.toBe(old.split(".")[1]);
    expect(secretBox(NEXT).open(again, "b")).toBe("secret");
  });

  it("reads a value stored before sealing existed as it is", () => {
    expect(secretBox(KEY).open("sk-plain", "b")).toBe("sk-plain");
    expect(secretBox(KEY).open('{"X-Key":"v"}', "b")).toBe('{"X-Key":"v"}');
  });
});
