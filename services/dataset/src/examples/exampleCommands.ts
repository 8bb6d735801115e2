import { streamId, unpackExamples } from "@argus/contracts";
import type { CommandOptions, CommandScope, EventMetadata, RowLock } from "@argus/eventstore";
import { isUuidList, uuidv7, type CallContext, type Permission, notFound } from "@argus/platform";
import { authorized, isUuid, spaceMetadata } from "@argus/spaces";
import type {
  DatasetWrite,
  DeleteExamplesRequest,
  DeleteExamplesResponse,
  ExampleInput,
  InsertExamplesRequest,
  UpdateExamplesRequest,
} from "@argus/proto/dataset/v1/dataset";
import { datasetDecider } from "../datasets/datasetDecider.ts";
import {
  lockDatasetFirst,
  lockedDatasetAs,
  toDataset,
  type DatasetRow,
  type VersionRow,
} from "../datasets/datasetRows.ts";
import type { DatasetDeps } from "../deps.ts";
import { ACCESS } from "../shared/access.ts";
import { invalid } from "../shared/problemRules.ts";
import { examplesNotHeld } from "./exampleProjection.ts";
import { versionPresentOf, versionWithPresentLookup } from "./exampleRows.ts";
import {
  EXAMPLE_MAX_BYTES,
  parseExamples,
  parseFieldsArray,
  requireDeletableIds,
  requireExampleSizes,
  type ExampleUpdate,
  type ParsedExample,
} from "./exampleRules.ts";
import {
  deletedEvents,
  insertedEvents,
  orderedIds,
  updateBatch,
  updatedEvents,
  type Target,
  type UpdateBatch,
} from "./exampleEvents.ts";

/**
 * The same id twice in one update is one update: its fields merged in request order (a later
 * value wins), at the place of its first appearance. The examples themselves when no id
 * repeats: known at once when they come in ascending order, as they are listed.
 */
export function mergeRepeats(examples: readonly ExampleUpdate[]): readonly ExampleUpdate[] {
  let ascending = true;
  for (let i = 1; i < examples.length && ascending; i++)
    ascending = examples[i - 1]!.id < examples[i]!.id;
  if (ascending) return examples;
  const byId = new Map<string, ExampleUpdate>();
  for (const e of examples) {
    const seen = byId.get(e.id);
    byId.set(e.id, seen ? { id: e.id, fields: { ...seen.fields, ...e.fields }, at: seen.at } : e);
  }
  return byId.size === examples.length ? examples : [...byId.values()];
}

/**
 * An update's examples, once: parsed from the fields array the gateway packs (or, from a
 * gateway before it, one text or one message each), repeats merged, ids that are no example id
 * left out (they match nothing and are ignored, spec 7), each within the size rule.
 */
export function updateBatchOf(req: UpdateExamplesRequest): UpdateBatch {
  const packed = req.packedExamples;
  // The earlier packings: each text was measured for the size rule as sent (parseExamples).
  if (!packed?.fields) {
    const given = parseExamples(legacyInputs(req), "update");
    return updateBatch(mergeRepeats(given).filter((e) => isUuid(e.id)));
  }
  const given = parseFieldsArray(packed.ids, packed.fields);
  const merged = mergeRepeats(given);
  const kept =
    merged === given && isUuidList(packed.ids) ? given : merged.filter((e) => isUuid(e.id));
  const batch = updateBatch(kept);
  // Packed examples come without texts of their own, but the batch's text holds each kept
  // one's: within the bound, so is each of them.
  if (kept !== given || batch.bytes > EXAMPLE_MAX_BYTES) requireExampleSizes(given);
  return batch;
}

/** An update's examples as gateways sent them before `PackedExamples.fields`. */
function legacyInputs(req: UpdateExamplesRequest): readonly ExampleInput[] {
  if (!req.packedExamples) return req.examples;
  const unpacked = unpackExamples(req.packedExamples);
  if (!unpacked) throw invalid("packed_examples holds a different number of ids and fields");
  return unpacked;
}

/** Where an example write lands, as read under the dataset's lock. */
interface WriteAt {
  lock: RowLock<DatasetRow>;
  /** The dataset's row; ahead of the lock's answer, the assumed one until `checks` passed. */
  row: DatasetRow;
  version: VersionRow;
  /** Which of the ids the write named the version holds (live), read under the lock. */
  present: Set<string>;
  now: Date;
  /** The events' dataset, space and version (an update into a new version names its own). */
  target: Target;
  meta: EventMetadata;
}

/**
 * A dataset as the last write of its examples in this process read it under its lock: its row
 * and its latest version. The next update of the latest version goes ahead of its lock's round
 * trip on these (`LockFirst.assumed`), and checks them against what the lock read before
 * COMMIT goes; when they changed meanwhile (a new version, the dataset deleted), nothing
 * commits and the update runs again the usual way.
 */
interface KnownDataset {
  row: DatasetRow;
  latest: VersionRow;
}

/** At most this many datasets are known at once (the oldest forgotten first). */
const KNOWN_DATASETS_MAX = 10_000;

/** What a write went ahead on was not what its lock read. */
class AssumedOtherwise extends Error {}

/**
 * Inserts, updates and deletes of one version's examples. Each runs in one transaction that
 * first locks the dataset's row: writes to one dataset take turns (none is lost, none is
 * refused for a race), a dataset deleted meanwhile is a 404, and the examples' stream, never
 * folded, is appended in that order (`appendLocked`).
 */
export function exampleCommands(deps: DatasetDeps) {
  const known = new Map<string, KnownDataset>();
  const remember = (row: DatasetRow, latest: VersionRow) => {
    known.delete(row.id);
    if (known.size >= KNOWN_DATASETS_MAX) known.delete(known.keys().next().value!);
    known.set(row.id, { row, latest });
  };
  const writeAt = (
    ctx: CallContext,
    lock: RowLock<DatasetRow>,
    row: DatasetRow,
    version: VersionRow,
    present: Set<string>,
  ): WriteAt => {
    const now = deps.clock.now();
    return {
      lock,
      row,
      version,
      present,
      now,
      target: { datasetId: row.id, spaceId: row.space_id, versionId: version.id, now },
      meta: spaceMetadata(ctx, row.space_id),
    };
  };

  /**
   * `fn` under the dataset's lock, on the version and `ids` present in it. With `assumed` (the
   * latest version, none of `ids` looked up) and a caller authorized on the dataset as known,
   * `fn` goes ahead of the lock's answer, and hands the checks of what it assumed to its last
   * append (`appendLockedLast`); a caller that is not goes the usual way, which answers it.
   */
  async function write<T>(
    ctx: CallContext,
    datasetId: string,
    permission: Permission,
    versionId: string,
    ids: readonly string[],
    fn: (scope: CommandScope, at: WriteAt, checks?: () => Promise<void>) => Promise<T>,
    options: Pick<CommandOptions, "conflicts" | "meanwhile"> = {},
    cached?: KnownDataset,
  ): Promise<T> {
    const assumed =
      cached &&
      (await authorized(deps.spaces, ctx, cached.row, ACCESS.dataset, permission).then(
        () => cached,
        () => undefined,
      ));
    // The version, and which of `ids` it holds, are read in BEGIN's round trip, under the
    // dataset's lock taken there: one round trip for what were three.
    const lookup = versionWithPresentLookup(datasetId, versionId, ids);
    return deps.commands.transact(
      async (scope) => {
        if (assumed) {
          const at = writeAt(
            ctx,
            scope.first!.lock as RowLock<DatasetRow>,
            assumed.row,
            assumed.latest,
            new Set(),
          );
          const checks = async () => {
            const answer = await scope.firstAnswer!;
            const row = answer.lock?.row as DatasetRow | undefined;
            const found = versionPresentOf(answer.then[0]);
            // Authorized on the assumed row's place: the same place is the same answer.
            if (
              row?.space_id !== assumed.row.space_id ||
              row.account_id !== assumed.row.account_id ||
              found?.version.id !== assumed.latest.id
            )
              throw new AssumedOtherwise();
            at.row = row;
          };
          return fn(scope, at, checks);
        }
        const lock = await lockedDatasetAs(scope, deps, ctx, permission);
        const found = versionPresentOf(scope.first?.then[0]);
        if (!found) throw notFound("dataset version");
        if (versionId === "") remember(lock.row, found.version);
        return fn(scope, writeAt(ctx, lock, lock.row, found.version, found.present));
      },
      {
        ...options,
        lockFirst: { ...lockDatasetFirst(datasetId, lookup), assumed: assumed?.row },
      },
    );
  }

  // The dataset as the write left it: its projection stamped it with the write's time.
  const written = (
    at: WriteAt,
    versionId: string,
    ids: string[],
    positions: number[] = [],
  ): DatasetWrite => ({
    dataset: toDataset({ ...at.row, updated_at: at.now }),
    versionId,
    exampleIds: ids,
    examplePositions: positions,
  });

  /** What an update of the latest version of a dataset known here may go ahead on. */
  const aheadOn = (req: UpdateExamplesRequest): KnownDataset | undefined =>
    req.newVersion === "" && req.versionId === "" ? known.get(req.datasetId) : undefined;

  return {
    async insertExamples(req: InsertExamplesRequest, ctx: CallContext): Promise<DatasetWrite> {
      // Parsed while BEGIN is in flight (as an update's are), once.
      let parsed: ParsedExample[] | undefined;
      const examples = () => (parsed ??= parseExamples(req.examples, "insert"));
      return write(
        ctx,
        req.datasetId,
        "DATASET_EXAMPLE_CREATE",
        req.versionId,
        [],
        async (scope, at) => {
          const ids = orderedIds(examples().length, at.now);
          await scope.appendLockedLast(
            at.lock,
            streamId("dataset_examples", at.row.id),
            insertedEvents(at.target, examples(), ids),
            at.meta,
          );
          return written(at, at.version.id, ids);
        },
        { meanwhile: examples },
      );
    },

    async updateExamples(req: UpdateExamplesRequest, ctx: CallContext): Promise<DatasetWrite> {
      // Parsed while the first try's BEGIN is in flight, once.
      let parsed: UpdateBatch | undefined;
      const examples = () => (parsed ??= updateBatchOf(req));
      // First as if the version held every example: its projection counts the rows it changed
      // and refuses the event when one is missing (examplesNotHeld), rolling the write back.
      // Then, only for a request naming such an example, again, with those it holds read first.
      // The usual write so costs no lookup of its 1000 examples before their update does it.
      const update = (check: boolean, assumed?: KnownDataset) =>
        write(
          ctx,
          req.datasetId,
          "DATASET_EXAMPLE_UPDATE",
          req.versionId,
          check ? examples().examples.map((e) => e.id) : [],
          async (scope, at, checks) => {
            let versionId = at.version.id;
            if (req.newVersion !== "") {
              known.delete(at.row.id);
              versionId = uuidv7(at.now.getTime());
              await scope.decide(
                streamId("dataset", at.row.id),
                datasetDecider,
                {
                  type: "CreateVersion",
                  id: versionId,
                  name: req.newVersion,
                  parentId: at.version.id,
                  now: at.now,
                },
                at.meta,
              );
            }
            const changed = check
              ? updateBatch(examples().examples.filter((e) => at.present.has(e.id)))
              : examples();
            await scope.appendLockedLast(
              at.lock,
              streamId("dataset_examples", at.row.id),
              updatedEvents({ ...at.target, versionId }, changed),
              at.meta,
              checks,
            );
            return written(
              at,
              versionId,
              [],
              changed.examples.map((e) => e.at),
            );
          },
          {
            conflicts: {
              dataset_versions_name_per_dataset: `the dataset already has a version named ${JSON.stringify(req.newVersion)}`,
            },
            meanwhile: examples,
          },
          assumed,
        );
      try {
        const assumed = aheadOn(req);
        if (assumed)
          try {
            return await update(false, assumed);
          } catch (err) {
            if (!(err instanceof AssumedOtherwise)) throw err;
            known.delete(req.datasetId);
          }
        return await update(false);
      } catch (err) {
        if (examplesNotHeld(err)) return update(true);
        throw err;
      }
    },

    async deleteExamples(
      req: DeleteExamplesRequest,
      ctx: CallContext,
    ): Promise<DeleteExamplesResponse> {
      if (req.versionId === "") throw invalid("dataset_version_id is required");
      requireDeletableIds(req.exampleIds);
      return write(
        ctx,
        req.datasetId,
        "DATASET_EXAMPLE_DELETE",
        req.versionId,
        req.exampleIds.filter(isUuid),
        async (scope, at) => {
          const deleted = req.exampleIds.filter((id) => at.present.has(id));
          await scope.appendLockedLast(
            at.lock,
            streamId("dataset_examples", at.row.id),
            deletedEvents(at.target, deleted),
            at.meta,
          );
          return {
            completed: true,
            deletedExampleIds: deleted,
            notDeletedExampleIds: req.exampleIds.filter((id) => !at.present.has(id)),
          };
        },
      );
    },
  };
}
