import { describe, expect, it } from "vitest";
import { DomainError } from "@argus/platform";
import {
  annotationConfigStateOf,
  decideAnnotationConfig,
  initialAnnotationConfigState,
  type AnnotationConfigCommand,
} from "../src/domain/annotationConfig.ts";

const now = new Date("2026-01-02T03:04:05.000Z");
const at = now.toISOString();
type Create = Extract<AnnotationConfigCommand, { type: "CreateAnnotationConfig" }>;
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
const problem = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return e.type;
    throw e;
  }
  return "none";
};
const labels = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ label: `l${i}`, score: null }));
const stateAfter = (c: AnnotationConfigCommand) =>
  annotationConfigStateOf(decideAnnotationConfig(c, initialAnnotationConfigState));

describe("annotation config decider", () => {
  it("given nothing, a CATEGORICAL config is created with NONE as the default direction", () => {
    expect(decideAnnotationConfig(create(), initialAnnotationConfigState)).toEqual([
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

  it("CATEGORICAL values: 2 and 100 pass; 1, 101, duplicates and empty labels are invalid", () => {
    const c = (values: { label: string; score: number | null }[]) =>
      problem(() => decideAnnotationConfig(create({ values }), initialAnnotationConfigState));
    expect(c(labels(2))).toBe("none");
    expect(c(labels(100))).toBe("none");
    expect(c(labels(1))).toBe("invalid-request");
    expect(c(labels(101))).toBe("invalid-request");
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
        decideAnnotationConfig(
          create({ configType: "CONTINUOUS", minimum_score, maximum_score, values: [] }),
          initialAnnotationConfigState,
        ),
      );
    expect(c(0, 1)).toBe("none");
    expect(c(1, 1)).toBe("invalid-request");
    expect(c(2, 1)).toBe("invalid-request");
  });

  it("FREEFORM carries no scores, values or direction; unknown types are invalid", () => {
    const [e] = decideAnnotationConfig(
      create({ configType: "FREEFORM", optimization_direction: "MAXIMIZE" }),
      initialAnnotationConfigState,
    );
    expect(e!.data).toMatchObject({ values: [], optimization_direction: null });
    expect(
      problem(() =>
        decideAnnotationConfig(create({ configType: "X" }), initialAnnotationConfigState),
      ),
    ).toBe("invalid-request");
  });

  it("update keeps omitted fields, checks the merged result, and the type is immutable", () => {
    const state = stateAfter(
      create({ configType: "CONTINUOUS", minimum_score: 0, maximum_score: 10, values: [] }),
    );
    const upd = (over: Partial<AnnotationConfigCommand & { type: "UpdateAnnotationConfig" }>) =>
      decideAnnotationConfig(
        {
          type: "UpdateAnnotationConfig",
          configType: "CONTINUOUS",
          now,
          ...over,
        } as AnnotationConfigCommand,
        state,
      );
    expect(upd({ maximum_score: 5 })[0]!.data).toMatchObject({
      name: "quality",
      minimum_score: 0,
      maximum_score: 5,
      optimization_direction: "NONE",
    });
    expect(problem(() => upd({ minimum_score: 20 }))).toBe("invalid-request");
    expect(problem(() => upd({ configType: "FREEFORM" }))).toBe("invalid-request");
    expect(upd({ name: "renamed" })[0]!.data).toMatchObject({ name: "renamed" });
  });

  it("deleted configs are not found", () => {
    const events = decideAnnotationConfig(create(), initialAnnotationConfigState);
    const state = annotationConfigStateOf(events);
    const deleted = annotationConfigStateOf([
      ...events,
      ...decideAnnotationConfig({ type: "DeleteAnnotationConfig", now }, state),
    ]);
    expect(
      problem(() => decideAnnotationConfig({ type: "DeleteAnnotationConfig", now }, deleted)),
    ).toBe("resource-not-found");
  });
});
