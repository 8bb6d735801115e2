import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeId } from "@argus/platform";
import { startApi, type Api, type Json } from "./support.ts";

// Racing writes to one dataset through the API: concurrent example inserts, updates, deletes,
// new versions and the dataset's own rename and delete. Every answer is 2xx, 404 or 409 (never
// a 5xx), no successful write is lost, and the stored history is one the deciders accept.

let api: Api;
let db: pg.Pool;
let spaceId: string;
beforeAll(async () => {
  api = await startApi();
  db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL, max: 2 });
  spaceId = ((await api.req("GET", "/v2/spaces")).body.spaces[0] as Json).id;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

async function create(n: number): Promise<{ id: string; exampleIds: string[] }> {
  const created = await api.req("POST", "/v2/datasets", {
    body: {
      name: `race ${Date.now()} ${Math.random()}`,
      space_id: spaceId,
      examples: Array.from({ length: n }, (_, i) => ({ i })),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const page = await api.req("GET", `/v2/datasets/${created.body.id}/examples?limit=500`);
  return {
    id: created.body.id as string,
    exampleIds: (page.body.examples as Json[]).map((e) => e.id as string),
  };
}

const examplesOf = async (id: string, version = "") =>
  (
    await api.req(
      "GET",
      `/v2/datasets/${id}/examples?limit=500${version ? `&dataset_version_id=${version}` : ""}`,
    )
  ).body.examples as Json[];

describe("concurrent writes to one dataset", () => {
  it("20 updates of different examples and 10 inserts at once: all succeed, none is lost", async () => {
    const d = await create(20);
    const calls = [
      ...d.exampleIds.map((id, i) =>
        api.req("PATCH", `/v2/datasets/${d.id}/examples`, {
          body: { examples: [{ id, [`k${i}`]: i }] },
        }),
      ),
      ...Array.from({ length: 10 }, (_, i) =>
        api.req("POST", `/v2/datasets/${d.id}/examples`, { body: { examples: [{ added: i }] } }),
      ),
    ];
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(20).every((s) => s === 201)).toBe(true);
    const after = await examplesOf(d.id);
    expect(after).toHaveLength(30);
    after.slice(0, 20).forEach((e, i) => expect(e[`k${i}`]).toBe(i));
    expect(
      after
        .slice(20)
        .map((e) => e.added)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("new versions, in-place edits and the dataset's delete racing: valid answers and history", async () => {
    for (let round = 0; round < 3; round++) {
      const d = await create(5);
      const calls = Array.from({ length: 24 }, (_, i) => {
        const examples = `/v2/datasets/${d.id}/examples`;
        switch (i % 6) {
          case 0:
            return api.req("PATCH", examples, {
              body: {
                examples: [{ id: d.exampleIds[i % 5], v: i }],
                new_version: `v-${round}-${i}`,
              },
            });
          case 1:
            return api.req("PATCH", examples, {
              body: { examples: [{ id: d.exampleIds[i % 5], p: i }] },
            });
          case 2:
            return api.req("POST", examples, { body: { examples: [{ n: i }] } });
          case 3:
            return api.req("PATCH", `/v2/datasets/${d.id}`, {
              body: { name: `renamed ${round} ${i}` },
            });
          case 4:
            return api.req("GET", `/v2/datasets/${d.id}`);
          default:
            return i === 23
              ? api.req("DELETE", `/v2/datasets/${d.id}`)
              : api.req("GET", `${examples}?limit=500`);
        }
      });
      const answers = await Promise.all(calls);
      const statuses = answers.map((r) => r.status);
      for (const r of answers)
        expect([200, 201, 204, 404, 409], `${r.status} ${JSON.stringify(r.body)}`).toContain(
          r.status,
        );
      expect(statuses[23]).toBe(204);
      const uuid = decodeId("Dataset", d.id)!;
      const { rows } = await db.query<{ event_type: string }>(
        `select event_type from dataset.events where stream_id = $1 order by stream_version`,
        [`dataset-${uuid}`],
      );
      const types = rows.map((r) => r.event_type);
      expect(types[0]).toBe("DatasetCreated");
      expect(types.filter((t) => t === "DatasetDeleted")).toHaveLength(1);
      expect(types.at(-1)).toBe("DatasetDeleted");
      // Nothing of the dataset is left behind in its tables.
      const left = await db.query(
        "select 1 from dataset.examples where dataset_id = $1 union all select 1 from dataset.dataset_versions where dataset_id = $1",
        [uuid],
      );
      expect(left.rows).toHaveLength(0);
      // Each version that was created is in the history once, before the delete.
      const created = statuses.filter((s, i) => i % 6 === 0 && s === 200).length;
      expect(types.filter((t) => t === "DatasetVersionCreated")).toHaveLength(created + 1);
    }
  });

  it("two concurrent new versions of one base: each holds only its own change", async () => {
    const d = await create(3);
    const base = (await api.req("GET", `/v2/datasets/${d.id}`)).body.versions[0].id as string;
    const [a, b] = await Promise.all(
      ["left", "right"].map((name, i) =>
        api.req("PATCH", `/v2/datasets/${d.id}/examples?dataset_version_id=${base}`, {
          body: { examples: [{ id: d.exampleIds[i], side: name }], new_version: name },
        }),
      ),
    );
    expect([a!.status, b!.status]).toEqual([200, 200]);
    const left = await examplesOf(d.id, a!.body.dataset_version_id);
    const right = await examplesOf(d.id, b!.body.dataset_version_id);
    expect(left.map((e) => e.side ?? null)).toEqual(["left", null, null]);
    expect(right.map((e) => e.side ?? null)).toEqual([null, "right", null]);
  });
});
