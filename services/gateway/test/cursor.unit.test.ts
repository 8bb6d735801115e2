import { describe, expect, it } from "vitest";
import { cursorBinding, signCursor, verifyCursor } from "../src/http/cursor.ts";

const SECRET = "s".repeat(32);
const binding = cursorBinding("list_spaces", {}, { name: "prod", limit: 50, cursor: "x" });

describe("cursors", () => {
  it("round-trips the position for the query that made it", () => {
    const c = signCursor(SECRET, binding, "2024-01-01T00:00:00Z|0192");
    expect(verifyCursor(SECRET, binding, c)).toBe("2024-01-01T00:00:00Z|0192");
  });

  it("ignores limit and cursor and the order of filters", () => {
    const a = cursorBinding(
      "list_spaces",
      { space_id: "x" },
      { name: "prod", org_id: "b3Jn", limit: 10 },
    );
    const b = cursorBinding(
      "list_spaces",
      { space_id: "x" },
      { org_id: "b3Jn", limit: 99, name: "prod", cursor: "c" },
    );
    expect(a).toBe(b);
  });

  it("refuses a cursor from another filter, another operation or other path parameters", () => {
    const c = signCursor(SECRET, binding, "pos");
    expect(verifyCursor(SECRET, cursorBinding("list_spaces", {}, { name: "dev" }), c)).toBeNull();
    expect(verifyCursor(SECRET, cursorBinding("list_spaces", {}, {}), c)).toBeNull();
    expect(
      verifyCursor(SECRET, cursorBinding("list_webhooks", {}, { name: "prod" }), c),
    ).toBeNull();
    const runs = signCursor(SECRET, cursorBinding("list_task_runs", { task_id: "a" }, {}), "pos");
    expect(
      verifyCursor(SECRET, cursorBinding("list_task_runs", { task_id: "b" }, {}), runs),
    ).toBeNull();
  });

  it("refuses a cursor signed with another secret", () => {
    expect(verifyCursor(SECRET, binding, signCursor("t".repeat(32), binding, "pos"))).toBeNull();
  });

  it("refuses any altered character, a swapped position and garbage", () => {
    const c = signCursor(SECRET, binding, "position-1");
    for (let i = 0; i < c.length; i++) {
      const flipped = c.slice(0, i) + (c[i] === "A" ? "B" : "A") + c.slice(i + 1);
      expect(verifyCursor(SECRET, binding, flipped), `flip at ${i}`).toBeNull();
    }
    const [pos, sig] = c.split(".") as [string, string];
    // Base64url's last character carries unused bits; a different spelling of the same bytes is still refused.
    for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") {
      if (ch === sig.at(-1)) continue;
      expect(verifyCursor(SECRET, binding, `${pos}.${sig.slice(0, -1)}${ch}`)).toBeNull();
    }
    expect(
      verifyCursor(SECRET, binding, `${Buffer.from("position-2").toString("base64url")}.${sig}`),
    ).toBeNull();
    for (const junk of ["", ".", "abc", "a.b.c", `${c}=`, `${c}.x`, "%%%.###"]) {
      expect(verifyCursor(SECRET, binding, junk), junk).toBeNull();
    }
  });
});
