import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { idSequence } from "../src/bulk/staging.ts";
import { takeRows, type ImportPart } from "../src/bulk/imports.ts";

type Part = ImportPart<never, { n: number }>;

async function take(parts: Part[], max: number): Promise<number | string> {
  async function* messages() {
    for (const part of parts) yield { part };
  }
  try {
    return await takeRows(messages(), async (rows) => rows.n, max);
  } catch (err) {
    return err instanceof DomainError ? err.type : String(err);
  }
}

const rows = (n: number): Part => ({ $case: "rows", value: { n } });
const end = (n: number): Part => ({ $case: "end", value: { rowCount: BigInt(n) } });

describe("an upload's rows", () => {
  it("count up to the limit: the limit passes, one more is refused", async () => {
    expect(await take([rows(6), rows(4), end(10)], 10)).toBe(10);
    expect(await take([rows(6), rows(5), end(11)], 10)).toBe("payload-too-large");
  });

  it("end with an end that counts them; none, or another count, is refused", async () => {
    expect(await take([rows(3)], 10)).toBe("invalid-request");
    expect(await take([rows(3), end(4)], 10)).toBe("invalid-request");
    expect(await take([end(0)], 10)).toBe("validation-error");
  });
});

describe("import ids", () => {
  it("are uuid v7 of the upload's time, ascending in upload order, all distinct", () => {
    const now = new Date("2026-11-29T00:00:00.000Z");
    const next = idSequence(now);
    const ids = Array.from({ length: 10_000 }, next);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0]!, ids.at(-1)!]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(now.getTime());
    }
  });
});
