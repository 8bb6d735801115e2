/**
 * Concurrent writes to one project's spans through the API: the same batch exported at once,
 * annotations of one span raced against each other and against its delete. Only valid
 * histories, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type Api, type Json } from "./support.ts";
import { postOtlp, recentWindow, sendSpans } from "./spans-support.ts";

let api: Api;
let spaceId: string;
const NOTE = "race-note";

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const config = await api.req("POST", "/v2/annotation-configs", {
    body: { name: NOTE, space_id: spaceId, annotation_config_type: "FREEFORM" },
  });
  expect(config.status).toBe(201);
});
afterAll(async () => {
  await api?.stop();
});

const unique = (what: string) => `${what}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

async function spansOf(projectId: string, filter?: string): Promise<Json[]> {
  const res = await api.req("POST", "/v2/spans?limit=500", {
    body: { project_id: projectId, ...recentWindow(), ...(filter ? { filter } : {}) },
  });
  expect(res.status).toBe(200);
  return res.body.spans as Json[];
}

const annotate = (projectId: string, spanId: string, text: string) =>
  api.req("POST", "/v2/spans/annotate", {
    body: {
      project_id: projectId,
      annotations: [{ record_id: spanId, values: [{ name: NOTE, text }] }],
    },
  });

describe("racing writes to one project's spans", () => {
  it("the same batch sent 8 times at once is stored once", async () => {
    const projectName = unique("race-export");
    // One batch, made once, then re-sent concurrently as an exporter's retries would.
    const first = await sendSpans(api.stack, { spaceId, projectName, traces: 2, spansPerTrace: 3 });
    await Promise.all(Array.from({ length: 8 }, () => postOtlp(api.stack, spaceId, first.body)));
    expect((await spansOf(first.projectId)).length).toBe(6);
  });

  it("20 annotations of one span at once: all 202, and the span keeps one of them", async () => {
    const sent = await sendSpans(api.stack, { spaceId, projectName: unique("race-annotate") });
    const spanId = sent.spanIds[0]!;
    const texts = Array.from({ length: 20 }, (_, i) => `take ${i}`);
    const answers = await Promise.all(texts.map((t) => annotate(sent.projectId, spanId, t)));
    expect(answers.map((a) => a.status)).toEqual(texts.map(() => 202));
    const [span] = await spansOf(sent.projectId, `context.span_id = '${spanId}'`);
    const notes = (span!.annotations as Json[]).filter((a) => a.name === NOTE);
    expect(notes).toHaveLength(1);
    expect(texts).toContain(notes[0]!.text);
  });

  it("annotations raced against the span's delete: 202 or 404, never a 5xx, nothing left behind", async () => {
    const sent = await sendSpans(api.stack, {
      spaceId,
      projectName: unique("race-delete"),
      spansPerTrace: 3,
    });
    const spanId = sent.spanIds[1]!;
    const writes = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => annotate(sent.projectId, spanId, `before ${i}`)),
      api.req("DELETE", "/v2/spans", { body: { project_id: sent.projectId, span_ids: [spanId] } }),
      ...Array.from({ length: 10 }, (_, i) => annotate(sent.projectId, spanId, `after ${i}`)),
    ]);
    const deleted = writes[10]!;
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_span_ids).toEqual([spanId]);
    for (const w of [...writes.slice(0, 10), ...writes.slice(11)])
      expect([202, 404]).toContain(w.status);
    expect(await spansOf(sent.projectId, `context.span_id = '${spanId}'`)).toEqual([]);
    // The same span sent again starts without annotations: none outlived its delete.
    await postOtlp(api.stack, spaceId, sent.body);
    const [back] = await spansOf(sent.projectId, `context.span_id = '${spanId}'`);
    expect(back!.annotations).toEqual([]);
  });
});
