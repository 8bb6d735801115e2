import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { ProjectServiceService as P } from "@argus/proto/catalog/v1/projects";
import { TracingServiceService as T } from "@argus/proto/tracing/v1/tracing";
import { startedForFile, uniqueName } from "@argus/testkit";
import { postgresSpanStore } from "../src/storage/postgres.ts";
import { dayOfMs, partitionName } from "../src/storage/time.ts";
import {
  eventually,
  exportRaw,
  exportResources,
  listSpans,
  newSpanId,
  projectIdOf,
  traceSpans,
} from "./spans.ts";
import { problemOf, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());
let nc: NatsConnection;
/** Every tracing event published, in order. */
const events: { subject: string; type: string; data: Record<string, unknown> }[] = [];

const DAY = 86_400_000;

const count = async (table: string, projectId: string) =>
  Number(
    (
      await t.pool.query<{ n: string }>(
        `select count(*) as n from ${table} where project_id = $1`,
        [projectId],
      )
    ).rows[0]!.n,
  );

const partitionExists = async (day: number) =>
  (await t.pool.query("select 1 from pg_class where relname = $1", [partitionName(day)]))
    .rowCount === 1;

beforeAll(async () => {
  nc = await connect({ servers: t.natsUrl });
  nc.subscribe(`${t.subjectRoot}.tracing.>`, {
    callback: (_e, m) => {
      const e = m.json<{ type: string; data: Record<string, unknown> }>();
      events.push({ subject: m.subject, type: e.type, data: e.data });
    },
  });
  await nc.flush();
  await t.createNotesConfig();
});
afterAll(async () => {
  await nc?.drain();
});

describe("projects", () => {
  it("deleting the project in the catalog removes its spans and annotations", async () => {
    const name = uniqueName("proj");
    const sent = traceSpans(3);
    await exportRaw(t, name, sent);
    const id = await projectIdOf(t, name);
    const keep = uniqueName("proj");
    await exportRaw(t, keep, traceSpans(2));
    const keptId = await projectIdOf(t, keep);
    for (const [granularity, record] of [
      ["SPAN", sent[0]!.spanId],
      // A trace is named by its root span (these spans are all roots).
      ["TRACE", sent[0]!.spanId],
    ] as const)
      await t.call(T.annotateSpans, {
        projectId: id,
        startTime: "",
        endTime: "",
        granularity,
        annotations: JSON.stringify([
          { record_id: record, values: [{ name: "notes", text: "x" }] },
        ]),
      });
    await t.pool.query(
      `insert into span_evaluations (project_id, span_id, name, score, updated_at)
       values ($1, $2, 'correctness', 1, now())`,
      [id, sent[1]!.spanId],
    );
    expect(await count("spans", id)).toBe(3);
    expect(await count("span_annotations", id)).toBe(2);

    await t.callOn(t.catalog, P.deleteProject, { id });
    const left = await eventually(
      async () =>
        (await count("spans", id)) +
        (await count("span_annotations", id)) +
        (await count("span_evaluations", id)),
      (n) => n === 0,
    );
    expect(left).toBe(0);
    expect((await t.pool.query("select 1 from projects where id = $1", [id])).rowCount).toBe(0);
    expect(await problemOf(listSpans(t, id))).toBe("resource-not-found");
    // Other projects keep theirs.
    expect(await listSpans(t, keptId)).toHaveLength(2);
    // The name is free again: the next export creates a new project.
    await exportRaw(t, name, traceSpans(1));
    const again = await projectIdOf(t, name);
    expect(again).not.toBe(id);
    expect(await listSpans(t, again)).toHaveLength(1);
  });

  it("a renamed project receives spans under its new name", async () => {
    const name = uniqueName("proj");
    await exportRaw(t, name, traceSpans(2));
    const id = await projectIdOf(t, name);
    const renamed = uniqueName("renamed");
    await t.callOn(t.catalog, P.updateProject, { id, name: renamed });
    // At once (the copy may not have heard of the rename yet) and once it has.
    expect((await exportRaw(t, renamed, traceSpans(1))).rejectedSpans).toBe(0n);
    expect(await listSpans(t, id)).toHaveLength(3);
    await eventually(
      async () =>
        (await t.pool.query<{ name: string }>("select name from projects where id = $1", [id]))
          .rows[0]?.name,
      (n) => n === renamed,
    );
    expect((await exportRaw(t, renamed, traceSpans(1))).rejectedSpans).toBe(0n);
    expect(await listSpans(t, id)).toHaveLength(4);
    // The old name is a new project now.
    await exportRaw(t, name, traceSpans(1));
    const fresh = await projectIdOf(t, name);
    expect(fresh).not.toBe(id);
    expect(await listSpans(t, fresh)).toHaveLength(1);
    expect(await listSpans(t, id)).toHaveLength(4);
  });

  it("concurrent first exports naming one new project create it once and store every span", async () => {
    const name = uniqueName("proj");
    const batches = Array.from({ length: 5 }, () => traceSpans(3));
    const results = await Promise.all(batches.map((b) => exportRaw(t, name, b)));
    expect(results.map((r) => r.rejectedSpans)).toEqual([0n, 0n, 0n, 0n, 0n]);
    const { projects } = await t.callOn(t.catalog, P.listProjects, {
      page: { limit: 100, after: "" },
      spaceId: t.spaceId,
      spaceName: "",
      name,
    });
    expect(projects.filter((p) => p.name === name)).toHaveLength(1);
    const id = projects.find((p) => p.name === name)!.id;
    const listed = await listSpans(t, id);
    expect(new Set(listed.map((s) => s.context.span_id))).toEqual(
      new Set(batches.flat().map((s) => s.spanId)),
    );
    const { rows } = await t.pool.query<{ n: string }>(
      "select count(*) as n from projects where space_id = $1 and name = $2",
      [t.spaceId, name],
    );
    expect(rows[0]!.n).toBe("1");
  });
});

/** Deadlocks Postgres detected in this file's database, once every backend reported its own. */
async function deadlocks(): Promise<number> {
  // Each backend reports its statistics at most once a second, and an idle one within ten.
  await new Promise((r) => setTimeout(r, 11_000));
  const { rows } = await t.pool.query<{ n: string }>(
    "select deadlocks as n from pg_stat_database where datname = current_database()",
  );
  return Number(rows[0]!.n);
}

describe("racing exports", () => {
  it("waves of up to 96 exporters racing onto one project all store their spans", async () => {
    const name = uniqueName("proj");
    await exportRaw(t, name, traceSpans(1));
    let sent = 1;
    for (const exporters of [48, 96, 96, 96]) {
      const batches = Array.from({ length: exporters }, () => traceSpans(100));
      const results = await Promise.allSettled(batches.map((b) => exportRaw(t, name, b)));
      // Before exports took the project's lock, some ran out of retries (ALREADY_EXISTS).
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      expect(
        results.map(
          (r) => (r as PromiseFulfilledResult<{ rejectedSpans: bigint }>).value.rejectedSpans,
        ),
      ).toEqual(batches.map(() => 0n));
      sent += exporters * 100;
    }
    expect(await count("spans", await projectIdOf(t, name))).toBe(sent);
  });
});

describe("multi-project requests", () => {
  it("racing requests naming the same projects in opposite orders all store, with no deadlock", async () => {
    const names = [uniqueName("proj"), uniqueName("proj")] as const;
    const first = names.map(() => traceSpans(1));
    for (const [k, name] of names.entries()) await exportRaw(t, name, first[k]!);
    // Each request's spans carry new attribute keys and append to both projects' span streams:
    // rows each project's statement locks until the transaction ends.
    const requests = Array.from({ length: 16 }, (_, i) => {
      const mine = (name: string) =>
        [name, traceSpans(2).map((s) => ({ ...s, attributes: { [`key.${i}`]: i } }))] as const;
      const pair = [mine(names[0]), mine(names[1])];
      return i % 2 === 0 ? pair : pair.reverse();
    });
    const results = await Promise.all(requests.map((r) => exportResources(t, r)));
    expect(results.map((r) => r.rejectedSpans)).toEqual(requests.map(() => 0n));
    for (const [k, name] of names.entries()) {
      const stored = await listSpans(t, await projectIdOf(t, name));
      expect(new Set(stored.map((s) => s.context.span_id))).toEqual(
        new Set([
          first[k]![0]!.spanId,
          ...requests.flatMap((r) => r.find(([n]) => n === name)![1].map((s) => s.spanId)),
        ]),
      );
      expect(stored).toHaveLength(1 + 2 * requests.length);
    }
    // Without the order, most runs end in a deadline: the victims' retries deadlock again.
    expect(await deadlocks()).toBe(0);
  });
});

describe("deletes", () => {
  it("within the window (start inclusive, end exclusive), of this project only", async () => {
    const name = uniqueName("proj");
    const base = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
    const sent = [0, 1, 2].map((i) => traceSpans(1, { startMs: base + i * 1000 })[0]!);
    await exportRaw(t, name, sent);
    const id = await projectIdOf(t, name);
    const other = uniqueName("proj");
    const foreign = traceSpans(1, { startMs: base });
    await exportRaw(t, other, foreign);
    const res = await t.call(T.deleteSpans, {
      projectId: id,
      spanIds: [...sent.map((s) => s.spanId), foreign[0]!.spanId],
      startTime: new Date(base).toISOString(),
      endTime: new Date(base + 2000).toISOString(),
    });
    expect(res.deletedSpanIds).toEqual([sent[0]!.spanId, sent[1]!.spanId]);
    expect(res.notDeletedSpanIds).toEqual([sent[2]!.spanId, foreign[0]!.spanId]);
    expect((await listSpans(t, id)).map((s) => s.context.span_id)).toEqual([sent[2]!.spanId]);
    expect(await listSpans(t, await projectIdOf(t, other))).toHaveLength(1);
    const del = (spanIds: string[], o: { startTime?: string; endTime?: string } = {}) =>
      problemOf(
        t.call(T.deleteSpans, {
          projectId: id,
          spanIds,
          startTime: o.startTime ?? "",
          endTime: o.endTime ?? "",
        }),
      );
    expect(await del([])).toBe("invalid-request");
    expect(await del(Array.from({ length: 5001 }, newSpanId))).toBe("invalid-request");
    expect(await del(Array.from({ length: 5000 }, newSpanId))).toBe("ok");
    expect(
      await del([sent[2]!.spanId], {
        startTime: new Date(base + 5000).toISOString(),
        endTime: new Date(base).toISOString(),
      }),
    ).toBe("invalid-request");
  });
});

describe("partitions", () => {
  it("concurrent exports onto new days create each day's partition once, without error", async () => {
    const today = dayOfMs(Date.now());
    const days = [20, 21, 22].map((ago) => today - ago);
    for (const day of days) expect(await partitionExists(day)).toBe(false);
    const name = uniqueName("proj");
    const batches = Array.from({ length: 6 }, (_, i) =>
      traceSpans(4, { startMs: (days[i % 3]! + 0.5) * DAY + i }),
    );
    // Two stores of their own (other replicas) prepare the same days at the same time.
    const replicas = [postgresSpanStore(t.pool), postgresSpanStore(t.pool)];
    const results = await Promise.all([
      ...batches.map((b) => exportRaw(t, name, b)),
      ...replicas.map((r) => r.prepare([...days, today - 23])),
    ]);
    expect(results.slice(0, 6).map((r) => (r as { rejectedSpans: bigint }).rejectedSpans)).toEqual([
      0n,
      0n,
      0n,
      0n,
      0n,
      0n,
    ]);
    for (const day of [...days, today - 23]) expect(await partitionExists(day)).toBe(true);
    const id = await projectIdOf(t, name);
    const listed = await listSpans(t, id, {
      startTime: new Date((today - 25) * DAY).toISOString(),
    });
    expect(listed).toHaveLength(24);
  });

  it("a day dropped is prepared again by the same store", async () => {
    const store = postgresSpanStore(t.pool);
    const day = dayOfMs(Date.now()) - 3000;
    await store.prepare([day]);
    expect(await partitionExists(day)).toBe(true);
    expect(await store.dropDaysBefore(day + 1)).toBeGreaterThanOrEqual(1);
    expect(await partitionExists(day)).toBe(false);
    await store.prepare([day]);
    expect(await partitionExists(day)).toBe(true);
    await store.dropDaysBefore(day + 1);
  });
});

describe("events", () => {
  const received = (projectId: string) =>
    events.filter((e) => e.type === "SpansReceived" && e.data.project_id === projectId);

  it("one SpansReceived per export and project, counting only the new spans", async () => {
    const name = uniqueName("proj");
    const start = Date.now() - 120_000;
    const first = traceSpans(3, { startMs: start });
    await exportRaw(t, name, first);
    const id = await projectIdOf(t, name);
    await eventually(
      async () => received(id),
      (e) => e.length === 1,
    );
    const [one] = received(id);
    expect(one!.subject).toBe(`${t.subjectRoot}.tracing.project_spans.SpansReceived`);
    expect(one!.data).toMatchObject({
      project_id: id,
      space_id: t.spaceId,
      span_count: 3,
      start_time: new Date(start).toISOString().replace("Z", "000Z"),
      end_time: new Date(start + 2).toISOString().replace("Z", "000Z"),
    });

    // The same three again and two new ones: two counted.
    const more = traceSpans(2, { startMs: start + 10 });
    await exportRaw(t, name, [...first, ...more]);
    await eventually(
      async () => received(id),
      (e) => e.length === 2,
    );
    expect(received(id)[1]!.data).toMatchObject({
      span_count: 2,
      start_time: new Date(start + 10).toISOString().replace("Z", "000Z"),
    });

    // Nothing new: no event. A later export shows the quiet one was not merely late.
    await exportRaw(t, name, [...first, ...more]);
    await exportRaw(t, name, traceSpans(1));
    await eventually(
      async () => received(id),
      (e) => e.length === 3,
    );
    expect(received(id).map((e) => e.data.span_count)).toEqual([3, 2, 1]);
  });

  it("one export naming two projects publishes one event each", async () => {
    const [a, b] = [uniqueName("proj"), uniqueName("proj")];
    // Both resources in one request.
    const body = {
      resourceSpans: [
        [a, 2],
        [b, 4],
      ].map(([name, n]) => ({
        resource: {
          attributes: [{ key: "openinference.project.name", value: { stringValue: name } }],
        },
        scopeSpans: [
          {
            spans: traceSpans(n as number).map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              name: s.name,
              startTimeUnixNano: (BigInt(s.startMs!) * 1_000_000n).toString(),
              endTimeUnixNano: (BigInt(s.startMs! + 1) * 1_000_000n).toString(),
            })),
          },
        ],
      })),
    };
    const res = await t.call(T.export, {
      payload: Buffer.from(JSON.stringify(body)),
      encoding: 2,
      spaceId: t.spaceId,
    });
    expect(res.rejectedSpans).toBe(0n);
    const [idA, idB] = [await projectIdOf(t, a), await projectIdOf(t, b)];
    await eventually(
      async () => [...received(idA), ...received(idB)],
      (e) => e.length === 2,
    );
    expect(received(idA).map((e) => e.data.span_count)).toEqual([2]);
    expect(received(idB).map((e) => e.data.span_count)).toEqual([4]);
  });

  it("annotations and deletes are published too", async () => {
    const name = uniqueName("proj");
    const sent = traceSpans(2);
    await exportRaw(t, name, sent);
    const id = await projectIdOf(t, name);
    await t.call(T.annotateSpans, {
      projectId: id,
      startTime: "",
      endTime: "",
      granularity: "SPAN",
      annotations: JSON.stringify([
        { record_id: sent[0]!.spanId, values: [{ name: "notes", text: "x" }] },
      ]),
    });
    await t.call(T.deleteSpans, {
      projectId: id,
      spanIds: [sent[1]!.spanId],
      startTime: "",
      endTime: "",
    });
    // A delete of nothing publishes nothing.
    await t.call(T.deleteSpans, {
      projectId: id,
      spanIds: [sent[1]!.spanId],
      startTime: "",
      endTime: "",
    });
    const mine = await eventually(
      async () => events.filter((e) => e.data.project_id === id).map((e) => e.type),
      (types) => types.length >= 3,
    );
    expect(mine).toEqual(["SpansReceived", "SpansAnnotated", "SpansDeleted"]);
    const deleted = events.find((e) => e.type === "SpansDeleted" && e.data.project_id === id)!;
    expect(deleted.data.span_ids).toEqual([sent[1]!.spanId]);
    const annotated = events.find((e) => e.type === "SpansAnnotated" && e.data.project_id === id)!;
    expect(annotated.data).toMatchObject({
      granularity: "SPAN",
      annotations: [{ record_id: sent[0]!.spanId, name: "notes", text: "x" }],
    });
  });
});
