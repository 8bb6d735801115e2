import { bindService, type Logger, type ServiceBinding } from "@argus/platform";
import type { Pool } from "pg";
import { DatasetBulkServiceService } from "@argus/proto/dataset/v1/bulk";
import type { DatasetDeps } from "../deps.ts";
import { exampleImport } from "./exampleImport.ts";
import { bulkExports } from "./exports.ts";
import { runImport } from "./runImport.ts";
import { sweepImports } from "./staging.ts";

/** The bulk paths (the gateway's Arrow Flight endpoint): imports and exports, streamed. */
export function bulkService(d: DatasetDeps): ServiceBinding {
  const runs = runImport(d);
  const exports = bulkExports(d);
  return bindService(DatasetBulkServiceService, {
    importDataset: exampleImport(d),
    exportExamples: exports.exportExamples,
    createExperimentEntry: runs.createExperimentEntry,
    importRuns: runs.importRuns,
    exportRuns: exports.exportRuns,
  });
}

/** How often abandoned imports are looked for. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Drops the staging of uploads that failed without dropping it themselves (their process died
 * mid-stream), once idle; returns the loop's stop. Any replica may sweep: a delete is a delete.
 */
export function sweepAbandonedImports(pool: Pool, logger: Logger): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = sweepImports(pool).then(
      (dropped) => dropped > 0 && logger.info("abandoned uploads dropped", { dropped }),
      (err: unknown) => logger.warn("sweeping abandoned uploads failed", { error: String(err) }),
    );
  }, SWEEP_EVERY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
