import pg from "pg";
import type { ResourceRef } from "@argus/proto/dataset/v1/dataset";
import { loadDocument } from "@argus/gateway";
import { startDatasetDouble } from "../../services/catalog/test/datasetDouble.ts";

type Refs = Record<string, ResourceRef & { type: string }>;

/** The `example` the document gives for a path parameter, e.g. `dataset_id`. */
function documentedExample(name: string): string {
  for (const item of Object.values(loadDocument().document.paths))
    for (const p of (item.parameters ?? []) as { name?: string; example?: unknown }[])
      if (p.name === name && typeof p.example === "string") return p.example;
  throw new Error(`the document gives no example for the path parameter ${name}`);
}

const uuidOf = (publicId: string) => Buffer.from(publicId, "base64").toString().split(":")[1]!;

/**
 * Datasets and experiments belong to a dataset service that does not exist yet; the catalog asks
 * it before tagging one. The fuzz stack gets the test double the e2e suite uses, answering for
 * exactly the dataset and the experiment the document shows as examples, so the fuzzer reaches
 * their tag operations through the examples it reads there.
 */
export async function startDatasets() {
  const refs: Refs = {};
  const double = await startDatasetDouble(refs);
  return {
    url: double.url,
    stop: double.stop,
    /** Places the documented dataset and experiment in the given space of the only account. */
    async place(databaseUrl: string, spaceId: string): Promise<void> {
      const db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
      const accountId = String((await db.query("select id from identity.accounts")).rows[0]?.id);
      await db.end();
      for (const [type, param] of [
        ["dataset", "dataset_id"],
        ["experiment", "experiment_id"],
      ] as const) {
        const id = uuidOf(documentedExample(param));
        refs[id] = { type, id, spaceId: uuidOf(spaceId), accountId };
      }
    },
  };
}
