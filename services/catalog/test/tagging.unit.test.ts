import { describe, expect, it } from "vitest";
import { decideTagging, type TaggingState } from "../src/tags/resourceTagDecider.ts";
import { problemDetail as problem } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const ids = (n: number, prefix = "t") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

function state(over: Partial<TaggingState> = {}): TaggingState {
  return {
    resourceType: "project",
    resourceId: "p1",
    spaceId: "s1",
    attached: new Set(),
    tagSpaces: new Map(ids(101).map((id) => [id, "s1"])),
    ...over,
  };
}

describe("AttachTags", () => {
  it("0 tag ids is 422 saying at least one tag ID is required", () => {
    expect(problem(() => decideTagging({ type: "AttachTags", tagIds: [], now }, state()))).toBe(
      "validation-error: tag_ids must contain at least 1 tag ID",
    );
  });

  it("1 and 100 tag ids are attached; 101 is 422", () => {
    expect(decideTagging({ type: "AttachTags", tagIds: ["t0"], now }, state())).toEqual([
      {
        type: "TagsAttached",
        data: {
          resource_type: "project",
          resource_id: "p1",
          space_id: "s1",
          tag_ids: ["t0"],
          attached_at: now.toISOString(),
        },
      },
    ]);
    const [e] = decideTagging({ type: "AttachTags", tagIds: ids(100), now }, state());
    expect(e!.data.tag_ids).toHaveLength(100);
    expect(
      problem(() => decideTagging({ type: "AttachTags", tagIds: ids(101), now }, state())),
    ).toMatch(/^validation-error: tag_ids must contain at most 100/);
  });

  it("re-attaching is idempotent: only new tags are recorded, none when all are attached", () => {
    const s = state({ attached: new Set(["t0"]) });
    expect(decideTagging({ type: "AttachTags", tagIds: ["t0"], now }, s)).toEqual([]);
    const [e] = decideTagging({ type: "AttachTags", tagIds: ["t0", "t1", "t1"], now }, s);
    expect(e!.data.tag_ids).toEqual(["t1"]);
  });

  it("an unknown tag or a tag from another space is 422 and nothing is attached", () => {
    expect(
      problem(() => decideTagging({ type: "AttachTags", tagIds: ["t0", "nope"], now }, state())),
    ).toBe("validation-error: every tag in tag_ids must exist");
    const s = state({ tagSpaces: new Map([["t0", "s2"]]) });
    expect(problem(() => decideTagging({ type: "AttachTags", tagIds: ["t0"], now }, s))).toMatch(
      /^validation-error: every tag in tag_ids must belong to the space of the project/,
    );
  });
});

describe("DetachTags", () => {
  it("records only attached tags; none when nothing was attached", () => {
    const s = state({ attached: new Set(["t0", "t1"]) });
    const [e] = decideTagging({ type: "DetachTags", tagIds: ["t1", "t5", "x"], now }, s);
    expect(e).toEqual({
      type: "TagsDetached",
      data: {
        resource_type: "project",
        resource_id: "p1",
        space_id: "s1",
        tag_ids: ["t1"],
        detached_at: now.toISOString(),
      },
    });
    expect(decideTagging({ type: "DetachTags", tagIds: ["t9"], now }, s)).toEqual([]);
  });

  it("0 and 101 tag ids are 422", () => {
    expect(problem(() => decideTagging({ type: "DetachTags", tagIds: [], now }, state()))).toMatch(
      /^validation-error: tag_ids must contain at least 1/,
    );
    expect(
      problem(() => decideTagging({ type: "DetachTags", tagIds: ids(101), now }, state())),
    ).toMatch(/^validation-error/);
  });
});
