import { describe, expect, it } from "vitest";
import { accountDecider } from "../src/initialization/accountDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-01T00:00:00.000Z");
const given = givenOf(accountDecider);
const create = { type: "CreateAccount" as const, id: "a1", name: "Acme", now };

describe("account decider", () => {
  it("given nothing, CreateAccount yields AccountCreated; given created, it conflicts", () => {
    const created = given().then(create);
    expect(created).toEqual([
      { type: "AccountCreated", data: { id: "a1", name: "Acme", created_at: now.toISOString() } },
    ]);
    expect(given(created).state).toEqual({ status: "live", id: "a1" });
    expect(problem(() => given(created).when(create))).toBe("resource-conflict");
  });
});
