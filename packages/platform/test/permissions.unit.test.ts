import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ACCOUNT_PERMISSIONS,
  PERMISSIONS,
  PREDEFINED_ROLES,
  isPermission,
  predefinedRole,
} from "../src/permissions.ts";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
const section = readme.slice(readme.indexOf("## Roles and permissions"));
const rolesSection = section.slice(0, section.indexOf("\n## ", 3));

describe("permissions", () => {
  it("holds the spec's 151 identifiers, each {RESOURCE}_{ACTION}, no duplicates", () => {
    expect(PERMISSIONS).toHaveLength(151);
    expect(new Set(PERMISSIONS).size).toBe(151);
    for (const p of PERMISSIONS) expect(p).toMatch(/^[A-Z]+(_[A-Z]+)+$/);
    expect(isPermission("TAG_READ")).toBe(true);
    expect(isPermission("TAG_READS")).toBe(false);
  });

  it("predefined roles nest: ANNOTATOR and READ_ONLY within MEMBER within ADMIN", () => {
    const set = (n: "ADMIN" | "MEMBER" | "READ_ONLY" | "ANNOTATOR") =>
      new Set<string>(predefinedRole(n).permissions);
    for (const p of set("MEMBER")) expect(set("ADMIN").has(p)).toBe(true);
    for (const p of set("READ_ONLY")) expect(set("MEMBER").has(p)).toBe(true);
    for (const p of set("ANNOTATOR")) expect(set("MEMBER").has(p)).toBe(true);
    for (const r of PREDEFINED_ROLES)
      for (const p of ACCOUNT_PERMISSIONS) expect(r.permissions).not.toContain(p);
  });

  it("the README table is exactly the code's permission sets", () => {
    const rows = rolesSection
      .split("\n")
      .filter((l) => /^\| [A-Z_]+ \|/.test(l) && !l.startsWith("| Permission"));
    const table = Object.fromEntries(
      rows.map((l) => {
        const cells = l
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim());
        return [cells[0], cells.slice(1)];
      }),
    );
    expect(Object.keys(table)).toEqual([...PERMISSIONS]);
    PREDEFINED_ROLES.forEach((r, i) => {
      const marked = PERMISSIONS.filter((p) => table[p]![i] === "✓");
      expect(marked).toEqual(PERMISSIONS.filter((p) => r.permissions.includes(p)));
    });
  });
});
