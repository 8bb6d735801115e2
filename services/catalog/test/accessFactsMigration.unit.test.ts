import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ACCESS_FACTS_SQL } from "@argus/spaces";

describe("migration 0027_access_facts", () => {
  // The catalog keeps its own file: it was applied in deployments before @argus/spaces
  // existed, and migrate() refuses an applied migration whose text (sha256) changed. It must
  // stay the very text of the shared tables, so the catalog's copy is the one other services get.
  it("is the shared access-facts SQL of @argus/spaces, byte for byte", () => {
    const own = readFileSync(
      new URL("../migrations/0027_access_facts.sql", import.meta.url),
      "utf8",
    );
    expect(own).toBe(ACCESS_FACTS_SQL);
  });
});
