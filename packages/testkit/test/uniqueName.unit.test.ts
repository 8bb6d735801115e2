import { expect, it } from "vitest";
import { freePort, uniqueName } from "../src/index.ts";

it("makes distinct names of only [A-Za-z0-9_-] that start with the prefix", () => {
  const names = new Set(Array.from({ length: 1000 }, () => uniqueName("ARGUS_EVENTS")));
  expect(names.size).toBe(1000);
  for (const name of names) expect(name).toMatch(/^ARGUS_EVENTS_[A-Za-z0-9_-]+$/);
  expect(uniqueName("orders.v1 >*")).toMatch(/^orders_v1___[0-9a-f]+$/);
});

it("finds a free port", async () => {
  const port = await freePort();
  expect(port).toBeGreaterThan(0);
  expect(port).toBeLessThan(65536);
});
