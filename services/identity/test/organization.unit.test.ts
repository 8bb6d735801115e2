import { describe, expect, it } from "vitest";
import {
  organizationDecider,
  type OrganizationCommand,
} from "../src/organizations/organizationDecider.ts";
import { givenOf, problem } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const given = givenOf(organizationDecider);
const create: OrganizationCommand = {
  type: "CreateOrganization",
  id: "o1",
  accountId: "a1",
  name: "O",
  description: "",
  now,
};
const update = (c: { name?: string; description?: string }): OrganizationCommand => ({
  type: "UpdateOrganization",
  now,
  ...c,
});
const del: OrganizationCommand = { type: "DeleteOrganization", now };
const created = given().then(create);
const deleted = given(created).then(del);

describe("organization decider", () => {
  it("given nothing, CreateOrganization yields OrganizationCreated; names 1..255", () => {
    expect(created).toEqual([
      {
        type: "OrganizationCreated",
        data: {
          id: "o1",
          account_id: "a1",
          name: "O",
          description: "",
          created_at: now.toISOString(),
        },
      },
    ]);
    expect(problem(() => given().when({ ...create, name: " " }))).toBe("invalid-request");
    expect(problem(() => given().when({ ...create, name: "x".repeat(256) }))).toBe(
      "invalid-request",
    );
    expect(problem(() => given(created).when(create))).toBe("resource-conflict");
  });

  it("update: a field is required, unchanged is a no-op, a change keeps the other field", () => {
    expect(problem(() => given(created).when(update({})))).toBe("invalid-request");
    expect(given(created).when(update({ name: "O" }))).toEqual([]);
    expect(given(created).when(update({ description: "x" }))).toEqual([
      {
        type: "OrganizationUpdated",
        data: { id: "o1", name: "O", description: "x", updated_at: now.toISOString() },
      },
    ]);
    const renamed = given(created).then(update({ name: "P" }));
    expect(given(renamed).when(update({ name: "P" }))).toEqual([]);
  });

  it("delete once: OrganizationDeleted", () => {
    expect(deleted.at(-1)).toEqual({
      type: "OrganizationDeleted",
      data: { id: "o1", deleted_at: now.toISOString() },
    });
  });

  it("given deleted (or never created), update and delete are 404", () => {
    for (const history of [deleted, []]) {
      expect(problem(() => given(history).when(update({ name: "x" })))).toBe("resource-not-found");
      expect(problem(() => given(history).when(del))).toBe("resource-not-found");
    }
  });
});
