import type { MatrixHelpers } from "./authz-catalog.ts";
import type { Json } from "./support.ts";

interface Request {
  method: string;
  path: string;
  body?: unknown;
  /** The caller's key; the admin's by default (sdk-contract only). */
  key?: string;
}
type Recipe = () => Promise<Request>;

/** A dataset, its first version and its examples' ids, made by the admin. */
export interface FreshDataset {
  id: string;
  versionId: string;
  exampleIds: string[];
}

export const EXAMPLES = [
  { question: "What is 2+2?", answer: "4", topic: "math" },
  { question: "Capital of Spain?", answer: "Madrid", topic: "geography" },
];

/** Creates a dataset in `space` (a fresh one by default) and reads back its version and examples. */
export async function freshDataset(
  h: Pick<MatrixHelpers, "asAdmin" | "freshSpace" | "unique">,
  space?: string,
  examples: object[] = EXAMPLES,
): Promise<FreshDataset> {
  const created = await h.asAdmin("POST", "/v2/datasets", {
    space_id: space ?? (await h.freshSpace()),
    name: h.unique(),
    examples,
  });
  const dataset = await h.asAdmin("GET", `/v2/datasets/${created.id}`);
  const page = await h.asAdmin("GET", `/v2/datasets/${created.id}/examples?limit=500`);
  return {
    id: created.id as string,
    versionId: dataset.versions[0].id as string,
    exampleIds: (page.examples as Json[]).map((e) => e.id as string),
  };
}

/**
 * A dataset or an experiment (without a dataset) in `space`, made by the admin through the
 * API: what the tag routes of either need, served by the real dataset service.
 */
export async function freshResourceRef(
  h: Pick<MatrixHelpers, "asAdmin" | "unique">,
  type: "dataset" | "experiment",
  space: string,
): Promise<string> {
  const created =
    type === "dataset"
      ? await h.asAdmin("POST", "/v2/datasets", {
          space_id: space,
          name: h.unique(),
          examples: EXAMPLES,
        })
      : await h.asAdmin("POST", "/v2/experiments", {
          space_id: space,
          name: h.unique(),
          experiment_runs: [{ output: "o" }],
        });
  return created.id as string;
}

/** A freeform annotation config in `space`, made by the admin: what annotations name. */
export async function freshAnnotationConfig(
  h: Pick<MatrixHelpers, "asAdmin" | "unique">,
  space: string,
): Promise<string> {
  const name = h.unique();
  await h.asAdmin("POST", "/v2/annotation-configs", {
    space_id: space,
    name,
    annotation_config_type: "FREEFORM",
  });
  return name;
}

/**
 * Recipes of the authorization matrix (authz-matrix.e2e.test.ts) and the SDK contract
 * (sdk-contract.e2e.test.ts) for the datasets group: every target is a fresh dataset in a fresh
 * private space, so each persona's outcome is decided by its permissions there. They need the
 * dataset service itself (not the DatasetService double those suites start for dataset tags).
 */
export function datasetRecipes(h: MatrixHelpers): Record<string, Recipe> {
  const examplesOf = async () => `/v2/datasets/${(await freshDataset(h)).id}/examples`;
  return {
    list_datasets: async () => ({ method: "GET", path: "/v2/datasets" }),
    create_dataset: async () => ({
      method: "POST",
      path: "/v2/datasets",
      body: { space_id: await h.freshSpace(), name: h.unique(), examples: EXAMPLES },
    }),
    get_dataset: async () => ({
      method: "GET",
      path: `/v2/datasets/${(await freshDataset(h)).id}`,
    }),
    update_dataset: async () => ({
      method: "PATCH",
      path: `/v2/datasets/${(await freshDataset(h)).id}`,
      body: { name: h.unique() },
    }),
    delete_dataset: async () => ({
      method: "DELETE",
      path: `/v2/datasets/${(await freshDataset(h)).id}`,
    }),
    list_dataset_examples: async () => ({ method: "GET", path: await examplesOf() }),
    insert_dataset_examples: async () => ({
      method: "POST",
      path: await examplesOf(),
      body: { examples: [{ question: "3+3?", answer: "6" }] },
    }),
    update_dataset_examples: async () => {
      const d = await freshDataset(h);
      return {
        method: "PATCH",
        path: `/v2/datasets/${d.id}/examples?dataset_version_id=${d.versionId}`,
        body: { examples: [{ id: d.exampleIds[0], answer: "four" }] },
      };
    },
    delete_dataset_examples: async () => {
      const d = await freshDataset(h);
      return {
        method: "DELETE",
        path: `/v2/datasets/${d.id}/examples`,
        body: { dataset_version_id: d.versionId, example_ids: [d.exampleIds[0]] },
      };
    },
    search_dataset_examples: async () => ({
      method: "POST",
      path: `${await examplesOf()}/search`,
      body: {},
    }),
    annotate_dataset_examples: async () => {
      const space = await h.freshSpace();
      const d = await freshDataset(h, space);
      const name = await freshAnnotationConfig(h, space);
      return {
        method: "POST",
        path: `/v2/datasets/${d.id}/examples/annotate`,
        body: { annotations: [{ record_id: d.exampleIds[0], values: [{ name, text: "ok" }] }] },
      };
    },
  };
}

/**
 * Further variants for the SDK contract: answers with several versions, nested and unicode
 * fields, empty pages, partial deletes, searches with a filter.
 */
export function datasetContractVariants(h: MatrixHelpers): Record<string, Record<string, Recipe>> {
  const nested = [
    {
      input: { messages: [{ role: "user", content: "héllo 🌍" }], k: 3 },
      expected: null,
      score: 0.5,
      tags: ["a", "b"],
    },
  ];
  return {
    get_dataset: {
      "two versions": async () => {
        const d = await freshDataset(h);
        await h.asAdmin("PATCH", `/v2/datasets/${d.id}/examples`, {
          examples: [{ id: d.exampleIds[0], answer: "four" }],
          new_version: "v2",
        });
        return { method: "GET", path: `/v2/datasets/${d.id}` };
      },
    },
    create_dataset: {
      "nested and unicode fields": async () => ({
        method: "POST",
        path: "/v2/datasets",
        body: { space_id: await h.freshSpace(), name: h.unique(), examples: nested },
      }),
    },
    list_dataset_examples: {
      "nested fields, one per page": async () => {
        const d = await freshDataset(h, undefined, [...nested, ...EXAMPLES]);
        return { method: "GET", path: `/v2/datasets/${d.id}/examples?limit=1` };
      },
      "a named version": async () => {
        const d = await freshDataset(h);
        return {
          method: "GET",
          path: `/v2/datasets/${d.id}/examples?dataset_version_id=${d.versionId}`,
        };
      },
    },
    update_dataset_examples: {
      "into a new version, with an id that names nothing": async () => {
        const d = await freshDataset(h);
        return {
          method: "PATCH",
          path: `/v2/datasets/${d.id}/examples`,
          body: {
            examples: [
              { id: d.exampleIds[0], answer: "four", extra: { nested: [1] } },
              { id: "ex_missing", answer: "x" },
            ],
            new_version: h.unique(),
          },
        };
      },
    },
    delete_dataset_examples: {
      "partly unknown ids": async () => {
        const d = await freshDataset(h);
        return {
          method: "DELETE",
          path: `/v2/datasets/${d.id}/examples`,
          body: { dataset_version_id: d.versionId, example_ids: [d.exampleIds[1], "nope"] },
        };
      },
    },
    search_dataset_examples: {
      "with a filter and a limit": async () => {
        const d = await freshDataset(h);
        return {
          method: "POST",
          path: `/v2/datasets/${d.id}/examples/search`,
          body: { filter: "topic = 'math'", limit: 1, dataset_version_id: d.versionId },
        };
      },
    },
  };
}
