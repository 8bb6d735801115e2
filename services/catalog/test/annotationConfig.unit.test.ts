import { describe, expect, it } from "vitest";
import type { AnnotationConfigEvent, CategoricalValue } from "@argus/contracts";
import {
  annotationConfigDecider,
  type AnnotationConfigCommand,
} from "../src/annotationConfigs/annotationConfigDecider.ts";
import { problem, scenario } from "./decider.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const at = now.toISOString();
type Create = Extract<AnnotationConfigCommand, { type: "CreateAnnotationConfig" }>;
type Update = Extract<AnnotationConfigCommand, { type: "UpdateAnnotationConfig" }>;
const create = (over: Partial<Create> = {}): Create => ({
  type: "CreateAnnotationConfig",
  id: "c1",
  accountId: "a1",
  spaceId: "s1",
  name: "quality",
  configType: "CATEGORICAL",
  values: [
    { label: "good", score: 1 },
    { label: "bad", score: 0 },
  ],
  now,
  ...over,
});
const continuous = create({
  configType: "CONTINUOUS",
  minimum_score: 0,
  maximum_score: 10,
  values: [],
});
const update = (over: Partial<Update>): Update => ({
  type: "UpdateAnnotationConfig",
  configType: "CONTINUOUS",
  now,
  ...over,
});
const del = (usedByQueue = false): AnnotationConfigCommand => ({
  type: "DeleteAnnotationConfig",
  usedByQueue,
  now,
});
const labels = (n: number): CategoricalValue[] =>
  Array.from({ length: n }, (_, i) => ({ label: `l${i}`, score: null }));

const { given, history } = scenario(annotationConfigDecider);
const nothing: AnnotationConfigEvent[] = [];

describe("annotation config decider", () => {
  it("given nothing, a CATEGORICAL config is created with NONE as the default direction", () => {
    expect(given(nothing).when(create())).toEqual([
      {
        type: "AnnotationConfigCreated",
        data: {
          id: "c1",
          account_id: "a1",
          space_id: "s1",
          name: "quality",
          config_type: "CATEGORICAL",
          minimum_score: null,
          maximum_score: null,
          values: [
            { label: "good", score: 1 },
            { label: "bad", score: 0 },
          ],
          optimization_direction: "NONE",
          created_at: at,
        },
      },
    ]);
  });

  it("CATEGORICAL values: 2 and 500 pass; 1, 501, duplicates and empty labels are invalid", () => {
    const c = (values: CategoricalValue[]) =>
      problem(() => given(nothing).when(create({ values })));
    expect(c(labels(2))).toBe("none");
    expect(c(labels(500))).toBe("none");
    expect(c(labels(1))).toBe("invalid-request");
    expect(c(labels(501))).toBe("invalid-request");
    expect(
      c([
        { label: "a", score: null },
        { label: "a", score: 1 },
      ]),
    ).toBe("invalid-request");
    expect(
      c([
        { label: " ", score: null },
        { label: "a", score: 1 },
      ]),
    ).toBe("invalid-request");
  });

  it("CONTINUOUS needs minimum below maximum", () => {
    const c = (minimum_score: number, maximum_score: number) =>
      problem(() =>
        given(nothing).when(
          create({ configType: "CONTINUOUS", minimum_score, maximum_score, values: [] }),
        ),
      );
    expect(c(0, 1)).toBe("none");
    expect(c(1, 1)).toBe("invalid-request");
    expect(c(2, 1)).toBe("invalid-request");
  });

  it("FREEFORM carries no scores, values or direction; unknown types are invalid", () => {
    const [e] = given(nothing).when(
      create({ configType: "FREEFORM", optimization_direction: "MAXIMIZE" }),
    );
    expect(e!.data).toMatchObject({ values: [], optimization_direction: null });
    expect(problem(() => given(nothing).when(create({ configType: "X" })))).toBe("invalid-request");
  });

  it("update keeps omitted fields, checks the merged result, and the type is immutable", () => {
    const created = history(continuous);
    expect(given(created).when(update({ maximum_score: 5 }))[0]!.data).toMatchObject({
      name: "quality",
      minimum_score: 0,
      maximum_score: 5,
      optimization_direction: "NONE",
    });
    expect(problem(() => given(created).when(update({ minimum_score: 20 })))).toBe(
      "invalid-request",
    );
    expect(problem(() => given(created).when(update({ configType: "FREEFORM" })))).toBe(
      "invalid-request",
    );
    expect(given(created).when(update({ name: "renamed" }))[0]!.data).toMatchObject({
      name: "renamed",
    });
  });

  it("an update folds into the state the next update merges with", () => {
    const narrowed = history(continuous, update({ maximum_score: 5 }));
    expect(problem(() => given(narrowed).when(update({ minimum_score: 6 })))).toBe(
      "invalid-request",
    );
  });

  it("a config a queue uses cannot be deleted (409)", () => {
    expect(problem(() => given(history(create())).when(del(true)))).toBe("resource-conflict");
    expect(
      given(history(create()))
        .when(del())
        .map((e) => e.type),
    ).toEqual(["AnnotationConfigDeleted"]);
  });

  it("given a deleted config: update → 404, delete → 404", () => {
    const deleted = history(continuous, del());
    expect(problem(() => given(deleted).when(update({ name: "x" })))).toBe("resource-not-found");
    expect(problem(() => given(deleted).when(del()))).toBe("resource-not-found");
  });
});
