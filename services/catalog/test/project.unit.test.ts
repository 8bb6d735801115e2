import { describe, expect, it } from "vitest";
import type { ProjectEvent } from "@argus/contracts";
import { projectDecider, type ProjectCommand } from "../src/projects/projectDecider.ts";
import { problem, scenario } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const create = (name: string): ProjectCommand => ({
  type: "CreateProject",
  id: "p1",
  accountId: "a1",
  spaceId: "s1",
  name,
  now,
});
const rename = (name: string): ProjectCommand => ({ type: "UpdateProject", name, now });
const del: ProjectCommand = { type: "DeleteProject", now };

const { given, history } = scenario(projectDecider);
const nothing: ProjectEvent[] = [];
const created = history(create("web app"));
const deleted = history(create("web app"), del);

describe("project decider", () => {
  it("given nothing, CreateProject records ProjectCreated", () => {
    expect(created).toEqual([
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
    expect(problem(() => given(nothing).when(create("a".repeat(255))))).toBe("none");
    expect(problem(() => given(nothing).when(create("a".repeat(256))))).toBe("invalid-request");
    expect(problem(() => given(nothing).when(create("  ")))).toBe("invalid-request");
  });

  it("given a project, UpdateProject renames and DeleteProject deletes it", () => {
    expect(given(created).when(rename("n"))).toEqual([
      {
        type: "ProjectUpdated",
        data: { id: "p1", space_id: "s1", name: "n", updated_at: now.toISOString() },
      },
    ]);
    expect(given(created).when(del)).toEqual([
      { type: "ProjectDeleted", data: { id: "p1", space_id: "s1", deleted_at: now.toISOString() } },
    ]);
    expect(problem(() => given(created).when(create("x")))).toBe("resource-conflict");
  });

  it("given no project, or a deleted one: update → 404, delete → 404", () => {
    for (const history of [nothing, deleted]) {
      expect(problem(() => given(history).when(rename("x")))).toBe("resource-not-found");
      expect(problem(() => given(history).when(del))).toBe("resource-not-found");
    }
  });
});
