import type { MatrixHelpers } from "./authz-catalog.ts";
import { freshAnnotationConfig, freshDataset } from "./authz-datasets.ts";
import type { Json } from "./support.ts";

interface Request {
  method: string;
  path: string;
  body?: unknown;
  /** The caller's key; the admin's by default (sdk-contract only). */
  key?: string;
}
type Recipe = () => Promise<Request>;
type Helpers = Pick<MatrixHelpers, "asAdmin" | "freshSpace" | "unique">;

/** An experiment made by the admin, with the examples its runs may name and its runs' ids. */
export interface FreshExperiment {
  id: string;
  /** Null for an experiment in a space without a dataset. */
  datasetId: string | null;
  exampleIds: string[];
  runIds: string[];
}

/** One run per example (on a dataset) or two runs without examples (in a space). */
export const runsFor = (exampleIds: readonly string[] | null, extra: object = {}): Json[] =>
  exampleIds === null
    ? [
        { output: "4", model: "gpt-4o-mini", ...extra },
        { output: "Madrid", error: null, ...extra },
      ]
    : exampleIds.map((example_id, i) => ({
        example_id,
        output: `answer ${i}`,
        latency_ms: 10 + i,
        ...extra,
      }));

/**
 * Creates an experiment in `space` (a fresh one by default): on a fresh dataset of that space,
 * or, with `withDataset: false`, in the space itself. Reads back its runs' ids.
 */
export async function freshExperiment(
  h: Helpers,
  opts: {
    space?: string;
    withDataset?: boolean;
    runs?: (exampleIds: string[] | null) => Json[];
  } = {},
): Promise<FreshExperiment> {
  const space = opts.space ?? (await h.freshSpace());
  const dataset = opts.withDataset === false ? null : await freshDataset(h, space);
  const exampleIds = dataset?.exampleIds ?? null;
  const created = await h.asAdmin("POST", "/v2/experiments", {
    name: h.unique(),
    ...(dataset ? { dataset_id: dataset.id } : { space_id: space }),
    experiment_runs: (opts.runs ?? runsFor)(exampleIds),
  });
  const page = await h.asAdmin("GET", `/v2/experiments/${created.id}/runs?limit=500`);
  return {
    id: created.id as string,
    datasetId: dataset?.id ?? null,
    exampleIds: exampleIds ?? [],
    runIds: (page.experiment_runs as Json[]).map((r) => r.id as string),
  };
}

/**
 * Recipes of the authorization matrix (authz-matrix.e2e.test.ts) and the SDK contract
 * (sdk-contract.e2e.test.ts) for the experiments group: every target is a fresh experiment on
 * a fresh dataset in a fresh private space, so each persona's outcome is decided by its
 * permissions there. They need the dataset service itself (not the DatasetService double).
 */
export function experimentRecipes(h: MatrixHelpers): Record<string, Recipe> {
  const experimentPath = async () => `/v2/experiments/${(await freshExperiment(h)).id}`;
  return {
    list_experiments: async () => ({ method: "GET", path: "/v2/experiments" }),
    create_experiment: async () => ({
      method: "POST",
      path: "/v2/experiments",
      body: { space_id: await h.freshSpace(), name: h.unique(), experiment_runs: runsFor(null) },
    }),
    get_experiment: async () => ({ method: "GET", path: await experimentPath() }),
    delete_experiment: async () => ({ method: "DELETE", path: await experimentPath() }),
    list_experiment_runs: async () => ({ method: "GET", path: `${await experimentPath()}/runs` }),
    insert_experiment_runs: async () => {
      const e = await freshExperiment(h);
      return {
        method: "POST",
        path: `/v2/experiments/${e.id}/runs`,
        body: { experiment_runs: [{ example_id: e.exampleIds[0], output: "four" }] },
      };
    },
    search_experiment_runs: async () => ({
      method: "POST",
      path: `${await experimentPath()}/runs/search`,
      body: {},
    }),
    annotate_experiment_runs: async () => {
      const space = await h.freshSpace();
      const e = await freshExperiment(h, { space });
      const name = await freshAnnotationConfig(h, space);
      return {
        method: "POST",
        path: `/v2/experiments/${e.id}/runs/annotate`,
        body: { annotations: [{ record_id: e.runIds[0], values: [{ name, text: "ok" }] }] },
      };
    },
  };
}

/**
 * Further variants for the SDK contract: experiments with and without a dataset, nested and
 * unicode run fields, `{}` fields, errors, empty and paged answers, filtered lists.
 */
export function experimentContractVariants(
  h: MatrixHelpers,
): Record<string, Record<string, Recipe>> {
  const rich = (exampleIds: string[] | null) =>
    runsFor(exampleIds, {
      input: { messages: [{ role: "user", content: "héllo 🌍" }], k: 3 },
      expected: null,
      score: 0.5,
      tags: ["a", "b"],
    });
  const spaceOnly = () => freshExperiment(h, { withDataset: false });
  return {
    create_experiment: {
      "on a dataset, nested and unicode fields": async () => {
        const space = await h.freshSpace();
        const d = await freshDataset(h, space);
        return {
          method: "POST",
          path: "/v2/experiments",
          body: { dataset_id: d.id, name: h.unique(), experiment_runs: rich(d.exampleIds) },
        };
      },
      "in a space, example_id null and an error": async () => ({
        method: "POST",
        path: "/v2/experiments",
        body: {
          space_id: await h.freshSpace(),
          name: h.unique(),
          experiment_runs: [{ example_id: null, output: "", error: "timeout" }],
        },
      }),
    },
    get_experiment: {
      "without a dataset": async () => ({
        method: "GET",
        path: `/v2/experiments/${(await spaceOnly()).id}`,
      }),
    },
    list_experiments: {
      "by dataset": async () => {
        const e = await freshExperiment(h);
        return { method: "GET", path: `/v2/experiments?dataset_id=${e.datasetId}` };
      },
      "by space, one per page": async () => {
        const space = await h.freshSpace();
        await freshExperiment(h, { space });
        await freshExperiment(h, { space, withDataset: false });
        return { method: "GET", path: `/v2/experiments?space_id=${space}&limit=1` };
      },
      "by a name matching nothing": async () => ({
        method: "GET",
        path: `/v2/experiments?name=${encodeURIComponent(`${h.unique()}"\\`)}`,
      }),
    },
    list_experiment_runs: {
      "nested fields, one per page": async () => {
        const e = await freshExperiment(h, { runs: rich });
        return { method: "GET", path: `/v2/experiments/${e.id}/runs?limit=1` };
      },
      "without a dataset, {} fields": async () => {
        const e = await freshExperiment(h, {
          withDataset: false,
          runs: () => [{ output: "a" }, { output: "b" }],
        });
        return { method: "GET", path: `/v2/experiments/${e.id}/runs` };
      },
    },
    insert_experiment_runs: {
      "without a dataset": async () => ({
        method: "POST",
        path: `/v2/experiments/${(await spaceOnly()).id}/runs`,
        body: { experiment_runs: rich(null) },
      }),
    },
    search_experiment_runs: {
      "with a filter and a limit": async () => ({
        method: "POST",
        path: `/v2/experiments/${(await freshExperiment(h)).id}/runs/search`,
        body: { filter: "output = 'answer 0'", limit: 1 },
      }),
    },
  };
}
