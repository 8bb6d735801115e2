import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The repo's own lint configuration refuses a pg pool, client or checkout made without the
// error listener database.ts attaches (issue 29: a checked-out client whose server restarted
// emitted an unhandled 'error' and killed the service).
const root = fileURLToPath(new URL("../../../", import.meta.url));
// The files linted here exist only as text: no TypeScript project holds them, so the type-aware
// rules are off for them (the rule under test is syntactic).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ["**/*.ts"],
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      "@typescript-eslint/no-floating-promises": "off",
      "@typescript-eslint/no-misused-promises": "off",
      "@typescript-eslint/await-thenable": "off",
      "@typescript-eslint/switch-exhaustiveness-check": "off",
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
    },
  },
});

async function ruleMessages(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === "no-restricted-syntax")
    .map((m) => m.message);
}

describe("pg connections are made by database.ts only", () => {
  it("refuses a bare checkout, pool or client in a service's source", async () => {
    const code = [
      'import pg from "pg";',
      'import { Client, Pool } from "pg";',
      "export async function f(pool: pg.Pool) {",
      "  const c = await pool.connect();",
      "  c.release();",
      '  const a = new pg.Pool({ connectionString: "" });',
      '  const b = new Client({ connectionString: "" });',
      '  const d = new Pool({ connectionString: "" });',
      "  return [a, b, d];",
      "}",
    ].join("\n");
    for (const file of [
      "services/catalog/src/tags/x.ts",
      "packages/eventstore/src/x.ts",
      "scripts/x.ts",
    ]) {
      const messages = await ruleMessages(code, file);
      expect(messages, file).toHaveLength(4);
      expect(messages[0]).toMatch(/checkout\(pool\)/);
    }
  });

  it("lets the helpers be used, and database.ts and tests make them", async () => {
    const helpers = [
      'import { checkout, connectClient, plainPool } from "@argus/platform";',
      'import type pg from "pg";',
      "export async function f(pool: pg.Pool) {",
      "  const c = await checkout(pool);",
      "  c.release();",
      '  await (await connectClient({ connectionString: "" })).end();',
      '  return plainPool({ connectionString: "" });',
      "}",
    ].join("\n");
    expect(await ruleMessages(helpers, "services/catalog/src/tags/x.ts")).toEqual([]);
    const raw = 'import pg from "pg";\nexport const p = new pg.Pool();\nawait p.connect();\n';
    expect(await ruleMessages(raw, "packages/platform/src/database.ts")).toEqual([]);
    expect(await ruleMessages(raw, "services/catalog/test/x.int.test.ts")).toEqual([]);
  });
});
