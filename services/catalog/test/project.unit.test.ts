import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import { decideProject, initialProjectState } from "../src/domain/project.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const existing = { exists: true, spaceId: "s1" };
const create = (name: string) =>
  ({ type: "CreateProject", id: "p1", accountId: "a1", spaceId: "s1", name, now }) as const;

const problem = (f: () => unknown): string => {
  try {
    f();
    return "ok";
  } catch (err) {
    return err instanceof DomainError ? `${err.type}: ${err.message}` : String(err);
  }
};

describe("projects", () => {
  it("CreateProject records ProjectCreated", () => {
    expect(decideProject(create("web app"), initialProjectState)).toEqual([
      {
        type: "ProjectCreated",
        data: {
          id: "p1",
          account_id: "a1",
          space_id: "s1",
          name: "web app",
          created_at: now.toISOString(),
        },
      },
    ]);
  });

  it("names: 255 characters pass, 256 and whitespace-only are 400", () => {
    expect(problem(() => decideProject(create("a".repeat(255)), initialProjectState))).toBe("ok");
    expect(problem(() => decideProject(create("a".repeat(256)), initialProjectState))).toMatch(
      /^invalid-request/,
    );
    expect(problem(() => decideProject(create("  "), initialProjectState))).toMatch(
      /^invalid-request/,
    );
  });

  it("UpdateProject renames; DeleteProject deletes; both need the project", () => {
    expect(decideProject({ type: "UpdateProject", id: "p1", name: "n", now }, existing)).toEqual([
      {
        type: "ProjectUpdated",
        data: { id: "p1", space_id: "s1", name: "n", updated_at: now.toISOString() },
      },
    ]);
    expect(decideProject({ type: "DeleteProject", id: "p1", now }, existing)[0]!.type).toBe(
      "ProjectDeleted",
    );
    expect(
      problem(() => decideProject({ type: "DeleteProject", id: "p1", now }, initialProjectState)),
    ).toMatch(/^resource-not-found/);
    expect(problem(() => decideProject(create("x"), existing))).toMatch(/^resource-conflict/);
  });
});
