import { beforeAll, describe, expect, it } from "vitest";
import { AnnotationConfigServiceService as C } from "@argus/proto/catalog/v1/annotations";
import { TracingServiceService as T } from "@argus/proto/tracing/v1/tracing";
import { startedForFile } from "@argus/testkit";
import {
  listSpans,
  listTraces,
  newSpanId,
  newTraceId,
  projectWith,
  traceSpans,
  type RawSpan,
  type Span,
} from "./spans.ts";
import { problemOf, startTracingUnderTest } from "./tracingUnderTest.ts";
import { CLOCK_LEEWAY_MS } from "../src/spans/spanAnnotateCommand.ts";

const t = startedForFile(() => startTracingUnderTest());

/** A project with two traces: A (root + two children) and B (a root alone). */
interface Fixture {
  projectId: string;
  traceA: string;
  traceB: string;
  rootA: string;
  child1: string;
  child2: string;
  rootB: string;
}

async function fixture(): Promise<Fixture> {
  const [traceA, traceB] = [newTraceId(), newTraceId()];
  const [rootA, child1, child2, rootB] = [newSpanId(), newSpanId(), newSpanId(), newSpanId()];
  const start = Date.now() - 3_600_000;
  const spans: RawSpan[] = [
    { traceId: traceA, spanId: rootA, name: "rootA", startMs: start, kind: "CHAIN" },
    { traceId: traceA, spanId: child1, parentId: rootA, name: "child1", startMs: start + 1 },
    { traceId: traceA, spanId: child2, parentId: rootA, name: "child2", startMs: start + 2 },
    { traceId: traceB, spanId: rootB, name: "rootB", startMs: start + 3, kind: "CHAIN" },
  ];
  return {
    projectId: await projectWith(t, spans),
    traceA,
    traceB,
    rootA,
    child1,
    child2,
    rootB,
  };
}

type Value = { name: string; label?: string; score?: number; text?: string };
type AnnotationRecord = { record_id: string; values: Value[] };

/** A SPAN record of the two values most tests give: a quality label and a rating score. */
const rated = (recordId: string, label: string, score: number): AnnotationRecord => ({
  record_id: recordId,
  values: [
    { name: "quality", label },
    { name: "rating", score },
  ],
});

const annotate = (
  projectId: string,
  records: AnnotationRecord[],
  o: { granularity?: string; startTime?: string; endTime?: string } = {},
) =>
  t.call(T.annotateSpans, {
    projectId,
    startTime: o.startTime ?? "",
    endTime: o.endTime ?? "",
    granularity: o.granularity ?? "",
    annotations: JSON.stringify(records),
  });

const byName = (spans: Span[]) => new Map(spans.map((s) => [s.name, s]));

beforeAll(async () => {
  const create = (req: {
    name: string;
    type: string;
    minimumScore?: number;
    maximumScore?: number;
    values?: { label: string; score?: number }[];
  }) =>
    t.callOn(t.catalog, C.createAnnotationConfig, {
      spaceId: t.spaceId,
      values: [],
      optimizationDirection: "",
      ...req,
    });
  await create({
    name: "quality",
    type: "CATEGORICAL",
    values: [
      { label: "good", score: 1 },
      { label: "bad", score: 0 },
    ],
  });
  await create({ name: "rating", type: "CONTINUOUS", minimumScore: 0, maximumScore: 1 });
  await create({ name: "notes", type: "FREEFORM" });
});

describe("AnnotateSpans", () => {
  it("SPAN annotations land on the span; TRACE ones, named by the root, on every span of the trace", async () => {
    const f = await fixture();
    const before = Date.now();
    await annotate(f.projectId, [
      {
        record_id: f.child1,
        values: [
          { name: "quality", label: "good", score: 1 },
          { name: "rating", score: 0.8 },
          { name: "notes", text: "looks right" },
        ],
      },
    ]);
    await annotate(
      f.projectId,
      [{ record_id: f.rootA, values: [{ name: "quality", label: "bad" }] }],
      {
        granularity: "TRACE",
      },
    );
    const spans = byName(await listSpans(t, f.projectId));
    const child1 = spans.get("child1")!;
    expect(child1.annotations.map((a) => a.name)).toEqual(["notes", "quality", "rating"]);
    const [notes, quality, rating] = child1.annotations;
    expect(quality).toMatchObject({ name: "quality", label: "good", score: 1 });
    expect(quality).not.toHaveProperty("text");
    expect(rating).toMatchObject({ name: "rating", score: 0.8 });
    expect(rating).not.toHaveProperty("label");
    expect(notes).toMatchObject({ name: "notes", text: "looks right" });
    const annotatorId = Buffer.from(`User:${t.admin.userId}`).toString("base64");
    for (const a of child1.annotations) {
      // The admin's own e-mail (identity's default initial admin), as it annotated.
      expect(a.annotator).toEqual({ id: annotatorId, email: "admin@argus.local" });
      expect(Date.parse(a.updated_at as string)).toBeGreaterThanOrEqual(before - 1000);
    }
    // No other span carries the span annotations.
    for (const name of ["rootA", "child2", "rootB"])
      expect(spans.get(name)!.annotations).toEqual([]);
    // The trace annotation is on every span of trace A, none of trace B, and not a span one.
    for (const name of ["rootA", "child1", "child2"])
      expect(spans.get(name)!.trace_annotations).toEqual([
        expect.objectContaining({ name: "quality", label: "bad" }),
      ]);
    expect(spans.get("rootB")!.trace_annotations).toEqual([]);
    expect(spans.get("rootA")!.annotations).toEqual([]);

    // Traces carry them too.
    const { traces } = await listTraces(t, f.projectId);
    const a = traces.find((tr) => tr.trace_id === f.traceA)!;
    expect(a.spans.find((s) => s.name === "child1")!.annotations).toHaveLength(3);
  });

  it("an upsert keeps the fields it leaves out and bumps updated_at", async () => {
    const f = await fixture();
    await annotate(f.projectId, [
      { record_id: f.child1, values: [{ name: "quality", label: "good", score: 1 }] },
    ]);
    const first = (await listSpans(t, f.projectId, { filter: `span_id = '${f.child1}'` }))[0]!
      .annotations[0]!;
    await new Promise((r) => setTimeout(r, 20));
    await annotate(f.projectId, [
      { record_id: f.child1, values: [{ name: "quality", text: "second look" }] },
    ]);
    const second = (await listSpans(t, f.projectId, { filter: `span_id = '${f.child1}'` }))[0]!
      .annotations[0]!;
    expect(second).toMatchObject({
      name: "quality",
      label: "good",
      score: 1,
      text: "second look",
    });
    expect(Date.parse(second.updated_at as string)).toBeGreaterThan(
      Date.parse(first.updated_at as string),
    );
    await annotate(f.projectId, [
      { record_id: f.child1, values: [{ name: "quality", label: "bad" }] },
    ]);
    const third = (await listSpans(t, f.projectId, { filter: `span_id = '${f.child1}'` }))[0]!
      .annotations[0]!;
    expect(third).toMatchObject({ label: "bad", score: 1, text: "second look" });
  });

  it("refuses what the configs or the project do not allow, and changes nothing", async () => {
    const f = await fixture();
    const one = (values: Value[], record = f.child1) => [{ record_id: record, values }];
    // Values the configs do not allow: 422.
    const invalidValues: [string, () => Promise<unknown>][] = [
      ["unknown config", () => annotate(f.projectId, one([{ name: "nope", label: "good" }]))],
      [
        "label not among the labels",
        () => annotate(f.projectId, one([{ name: "quality", label: "meh" }])),
      ],
      [
        "score above the maximum",
        () => annotate(f.projectId, one([{ name: "rating", score: 1.5 }])),
      ],
      [
        "score below the minimum",
        () => annotate(f.projectId, one([{ name: "rating", score: -0.1 }])),
      ],
      ["no values", () => annotate(f.projectId, one([]))],
      ["no records", () => annotate(f.projectId, [])],
    ];
    // A record the project does not hold within the window: 404 for the whole request (the
    // public API: "If ANY span cannot be located within the given range, the entire request
    // is rejected with 404 and no annotations are written").
    const notFound: [string, () => Promise<unknown>][] = [
      [
        "a span id of no span",
        () => annotate(f.projectId, one([{ name: "rating", score: 0.5 }], newSpanId())),
      ],
      [
        "a trace id as a SPAN record",
        () => annotate(f.projectId, one([{ name: "rating", score: 0.5 }], f.traceA)),
      ],
      [
        "a non-root span id as a TRACE record",
        () =>
          annotate(f.projectId, one([{ name: "rating", score: 0.5 }]), { granularity: "TRACE" }),
      ],
      [
        "a trace id as a TRACE record (the public API names a trace by its root span)",
        () =>
          annotate(f.projectId, one([{ name: "rating", score: 0.5 }], f.traceA), {
            granularity: "TRACE",
          }),
      ],
      [
        "a span outside the window",
        () =>
          annotate(f.projectId, one([{ name: "rating", score: 0.5 }]), {
            startTime: new Date(Date.now() - 60_000).toISOString(),
          }),
      ],
    ];
    // What the public API calls a malformed request: 400.
    const inFuture = new Date(Date.now() + 60 * 60_000).toISOString();
    const DAY = 24 * 60 * 60_000;
    const invalidRequests: [string, () => Promise<unknown>][] = [
      [
        "the same name twice in one record",
        () =>
          annotate(
            f.projectId,
            one([
              { name: "rating", score: 0.5 },
              { name: "rating", score: 0.6 },
            ]),
          ),
      ],
      [
        "the same record twice",
        () =>
          annotate(f.projectId, [
            ...one([{ name: "rating", score: 0.5 }]),
            ...one([{ name: "notes", text: "again" }]),
          ]),
      ],
      [
        "an end in the future",
        () => annotate(f.projectId, one([{ name: "rating", score: 0.5 }]), { endTime: inFuture }),
      ],
      [
        "a window of 31 days and 1 ms",
        () => {
          const end = Date.now() - 60_000;
          return annotate(f.projectId, one([{ name: "rating", score: 0.5 }]), {
            startTime: new Date(end - 31 * DAY - 1).toISOString(),
            endTime: new Date(end).toISOString(),
          });
        },
      ],
    ];
    for (const [cases, expected] of [
      [invalidValues, "validation-error"],
      [notFound, "resource-not-found"],
      [invalidRequests, "invalid-request"],
    ] as const)
      for (const [what, call] of cases)
        expect({ what, problem: await problemOf(call()) }).toEqual({ what, problem: expected });

    // A span of another project is no record of this one.
    const other = await fixture();
    expect(
      await problemOf(annotate(f.projectId, one([{ name: "rating", score: 0.5 }], other.child1))),
    ).toBe("resource-not-found");
    // One bad record refuses the whole request: a value out of bounds, or a span not found.
    expect(
      await problemOf(
        annotate(f.projectId, [
          { record_id: f.child2, values: [{ name: "rating", score: 0.5 }] },
          { record_id: f.child1, values: [{ name: "rating", score: 7 }] },
        ]),
      ),
    ).toBe("validation-error");
    expect(
      await problemOf(
        annotate(f.projectId, [
          { record_id: f.child2, values: [{ name: "rating", score: 0.5 }] },
          { record_id: newSpanId(), values: [{ name: "rating", score: 0.5 }] },
        ]),
      ),
    ).toBe("resource-not-found");
    const spans = await listSpans(t, f.projectId);
    expect(spans.flatMap((s) => [...s.annotations, ...s.trace_annotations])).toEqual([]);
  });

  it("a window of exactly 31 days, ending now, is one", async () => {
    const f = await fixture();
    const DAY = 24 * 60 * 60_000;
    const end = Date.now();
    expect(
      await problemOf(
        annotate(f.projectId, [{ record_id: f.child1, values: [{ name: "rating", score: 0.5 }] }], {
          startTime: new Date(end - 31 * DAY).toISOString(),
          endTime: new Date(end).toISOString(),
        }),
      ),
    ).toBe("ok");
  });

  it("the caller's clock may run up to a minute ahead of the service's (CLOCK_LEEWAY_MS)", async () => {
    const f = await fixture();
    const DAY = 24 * 60 * 60_000;
    const rec = [{ record_id: f.child1, values: [{ name: "rating", score: 0.5 }] }];
    const at = (ms: number) => new Date(ms).toISOString();
    // An end at the caller's now, its clock 30 s ahead; a minute and a second ahead is the future.
    expect(await problemOf(annotate(f.projectId, rec, { endTime: at(Date.now() + 30_000) }))).toBe(
      "ok",
    );
    expect(
      await problemOf(
        annotate(f.projectId, rec, { endTime: at(Date.now() + CLOCK_LEEWAY_MS + 1_000) }),
      ),
    ).toBe("invalid-request");
    // No end: 31 days before the caller's now, which ran 30 s ahead, is still one window.
    expect(
      await problemOf(
        annotate(f.projectId, rec, { startTime: at(Date.now() - 31 * DAY - 30_000) }),
      ),
    ).toBe("ok");
    expect(
      await problemOf(
        annotate(f.projectId, rec, {
          startTime: at(Date.now() - 31 * DAY - CLOCK_LEEWAY_MS - 1_000),
        }),
      ),
    ).toBe("invalid-request");
  });

  it("SESSION and other granularities are invalid requests; the annotations must be a JSON array", async () => {
    const f = await fixture();
    const rec = [{ record_id: f.child1, values: [{ name: "rating", score: 0.5 }] }];
    /** The annotations as the request's JSON text, unchecked by the test's types. */
    const annotateText = (annotations: string) =>
      t.call(T.annotateSpans, {
        projectId: f.projectId,
        startTime: "",
        endTime: "",
        granularity: "",
        annotations,
      });
    expect(await problemOf(annotate(f.projectId, rec, { granularity: "SESSION" }))).toBe(
      "invalid-request",
    );
    expect(await problemOf(annotate(f.projectId, rec, { granularity: "span" }))).toBe(
      "invalid-request",
    );
    // The annotations as sent: an object, not an array; not JSON at all.
    for (const annotations of ['{"record_id": "x"}', "[{]"])
      expect(await problemOf(annotateText(annotations))).toBe("invalid-request");
    expect(await problemOf(annotate(f.projectId, rec, { startTime: "yesterday" }))).toBe(
      "invalid-request",
    );
    // Values of the wrong shape or type are refused, not stored without the field.
    for (const values of [
      [null],
      ["rating"],
      [{ score: 0.5 }],
      [{ name: 5, score: 0.5 }],
      [{ name: "rating", score: "0.5" }],
      [{ name: "quality", label: 1 }],
      [{ name: "notes", text: { a: 1 } }],
    ]) {
      const raw = JSON.stringify([{ record_id: f.child1, values }]);
      expect({
        values,
        problem: await problemOf(annotateText(raw)),
      }).toEqual({ values, problem: "invalid-request" });
    }
    // Null stands for a field left out.
    expect(
      await problemOf(
        annotateText(
          JSON.stringify([
            { record_id: f.child1, values: [{ name: "rating", score: 0.5, label: null }] },
          ]),
        ),
      ),
    ).toBe("ok");
    const spans = await listSpans(t, f.projectId);
    expect(spans.flatMap((s) => s.annotations)).toEqual([
      expect.objectContaining({ name: "rating", score: 0.5 }),
    ]);
  });

  it("included and excluded columns name annotations as annotation.<name>", async () => {
    const f = await fixture();
    await annotate(f.projectId, [rated(f.child1, "good", 0.3)]);
    await annotate(f.projectId, [{ record_id: f.rootA, values: [{ name: "notes", text: "t" }] }], {
      granularity: "TRACE",
    });
    const child = async (o: { includedColumns?: string[]; excludedColumns?: string[] }) =>
      (await listSpans(t, f.projectId, { filter: `span_id = '${f.child1}'`, ...o }))[0]!;
    const only = await child({ includedColumns: ["annotation.quality"] });
    expect(only.annotations.map((a) => a.name)).toEqual(["quality"]);
    expect(only.trace_annotations).toEqual([]);
    expect(only.attributes).toEqual({});
    const without = await child({ excludedColumns: ["annotation.rating", "annotation.notes"] });
    expect(without.annotations.map((a) => a.name)).toEqual(["quality"]);
    expect(without.trace_annotations).toEqual([]);
    expect(without.attributes).toHaveProperty("openinference.span.kind");
  });

  it("1000 records are accepted in one request, 1001 are not", async () => {
    const spans = traceSpans(1001, { startMs: Date.now() - 600_000 });
    const projectId = await projectWith(t, spans);
    const records = spans.map((s, i) => ({
      record_id: s.spanId,
      values: [{ name: "rating", score: (i % 10) / 10 }],
    }));
    expect(await problemOf(annotate(projectId, records))).toBe("validation-error");
    expect(
      (await listSpans(t, projectId, { filter: "annotation.rating.score IS NOT NULL" })).length,
    ).toBe(0);
    expect(await problemOf(annotate(projectId, records.slice(0, 1000)))).toBe("ok");
    let annotated = 0;
    let after = "";
    do {
      const page = await t.call(T.listSpans, {
        projectId,
        startTime: "",
        endTime: "",
        filter: "annotation.rating.score IS NOT NULL",
        includedColumns: [],
        excludedColumns: [],
        truncateStringLength: 0,
        page: { limit: 500, after },
      });
      annotated += page.spans.length;
      after = page.page?.nextAfter ?? "";
    } while (after);
    expect(annotated).toBe(1000);
  });

  it("a deleted span takes its annotations along; sent again, it has none", async () => {
    const f = await fixture();
    await annotate(f.projectId, [
      { record_id: f.child1, values: [{ name: "notes", text: "gone" }] },
      { record_id: f.child2, values: [{ name: "notes", text: "kept" }] },
    ]);
    const res = await t.call(T.deleteSpans, {
      projectId: f.projectId,
      spanIds: [f.child1],
      startTime: "",
      endTime: "",
    });
    expect(res.deletedSpanIds).toEqual([f.child1]);
    const { rows } = await t.pool.query<{ record_id: string }>(
      "select record_id from span_annotations where project_id = $1 and granularity = 'SPAN'",
      [f.projectId],
    );
    expect(rows.map((r) => r.record_id)).toEqual([f.child2]);
    expect(
      await problemOf(
        annotate(f.projectId, [{ record_id: f.child1, values: [{ name: "notes", text: "x" }] }]),
      ),
    ).toBe("resource-not-found");
  });

  it("annotation filters select the annotated spans", async () => {
    const f = await fixture();
    await annotate(f.projectId, [rated(f.child1, "good", 0.9), rated(f.child2, "bad", 0.2)]);
    // TRACE annotations are not what `annotation.<name>` reads (that is the span's own).
    await annotate(
      f.projectId,
      [{ record_id: f.rootB, values: [{ name: "quality", label: "good" }] }],
      {
        granularity: "TRACE",
      },
    );
    const names = async (filter: string) =>
      (await listSpans(t, f.projectId, { filter })).map((s) => s.name).sort();
    expect(await names("annotation.quality.label = 'good'")).toEqual(["child1"]);
    expect(await names("annotation.quality.label = 'bad'")).toEqual(["child2"]);
    expect(await names("annotation.rating.score > 0.5")).toEqual(["child1"]);
    expect(await names("annotation.rating.score <= 0.5")).toEqual(["child2"]);
    expect(await names("annotation.rating.score IS NULL")).toEqual(["rootA", "rootB"]);
    expect(await names("annotation.quality.label != 'good'")).toEqual(["child2"]);
    expect(await names("annotation.quality.text IS NOT NULL")).toEqual([]);
    expect(await problemOf(names("annotation.quality.colour = 'x'"))).toBe("invalid-request");
    // Traces whose spans match.
    const { traces } = await listTraces(t, f.projectId, {
      filter: "annotation.rating.score > 0.5",
    });
    expect(traces.map((tr) => tr.trace_id)).toEqual([f.traceA]);
  });
});
