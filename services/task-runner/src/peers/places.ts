import type { Client } from "@grpc/grpc-js";
import {
  callUnary,
  fromGrpcError,
  notFound,
  onwardCall,
  type CallContext,
  type ClientMethod,
} from "@argus/platform";
import { EvaluatorServiceService } from "@argus/proto/catalog/v1/evaluators";
import { IntegrationServiceService } from "@argus/proto/catalog/v1/integrations";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { DatasetServiceService } from "@argus/proto/dataset/v1/dataset";
import { isUuid } from "@argus/spaces";

/** An evaluator as a task runs it: its space and kind, and the version that runs. */
interface EvaluatorPlace {
  id: string;
  spaceId: string;
  name: string;
  /** TEMPLATE or CODE. */
  type: string;
  versionId: string;
  /** The version's template_config or code_config. */
  config: Record<string, unknown>;
}

/**
 * The projects, datasets, experiments and evaluators a task names, asked of their services as
 * the caller: what the caller cannot read is not found, as it would be to them directly.
 */
export interface Places {
  project(ctx: CallContext, id: string): Promise<{ id: string; spaceId: string }>;
  dataset(ctx: CallContext, id: string): Promise<{ id: string; spaceId: string }>;
  experiment(ctx: CallContext, id: string): Promise<{ id: string; datasetId: string }>;
  /** Whether the dataset has an experiment named exactly `name` (names are unique on it). */
  experimentNamed(ctx: CallContext, datasetId: string, name: string): Promise<boolean>;
  /** `versionId` empty: the latest version. */
  evaluator(ctx: CallContext, id: string, versionId: string): Promise<EvaluatorPlace>;
  /** An AGENT or EVALUATOR integration: its type. */
  integration(ctx: CallContext, id: string): Promise<{ id: string; type: string }>;
}

export function servicePlaces(catalog: Client, dataset: Client): Places {
  async function ask<Req, Res>(
    channel: Client,
    method: ClientMethod<Req, Res>,
    req: Req,
    ctx: CallContext,
    what: string,
  ): Promise<Res> {
    try {
      return await callUnary(channel, method, req, onwardCall(ctx));
    } catch (err) {
      const e = fromGrpcError(err);
      throw e.type === "resource-not-found" ? notFound(what) : e;
    }
  }
  const uuid = (id: string, what: string) => {
    if (!isUuid(id)) throw notFound(what);
    return id;
  };
  /** A resource by its id (none that is no uuid), not found as `what`. */
  const byId = <Res>(
    channel: Client,
    method: ClientMethod<{ id: string }, Res>,
    ctx: CallContext,
    id: string,
    what: string,
  ) => ask(channel, method, { id: uuid(id, what) }, ctx, what);
  return {
    async project(ctx, id) {
      const p = await byId(catalog, ProjectServiceService.getProject, ctx, id, "project");
      return { id: p.id, spaceId: p.spaceId };
    },
    async dataset(ctx, id) {
      const d = await byId(dataset, DatasetServiceService.getDataset, ctx, id, "dataset");
      return { id: d.id, spaceId: d.spaceId };
    },
    async experiment(ctx, id) {
      const e = await byId(dataset, DatasetServiceService.getExperiment, ctx, id, "experiment");
      return { id: e.id, datasetId: e.datasetId };
    },
    async experimentNamed(ctx, datasetId, name) {
      // The list's name filter is a case-insensitive substring: the exact name is among what
      // it answers, if the dataset has it. Few names contain another, so this is a page or two.
      let after = "";
      for (;;) {
        const page = await ask(
          dataset,
          DatasetServiceService.listExperiments,
          { datasetId: uuid(datasetId, "dataset"), spaceId: "", name, page: { limit: 100, after } },
          ctx,
          "dataset",
        );
        if (page.experiments.some((e) => e.name === name)) return true;
        after = page.page?.nextAfter ?? "";
        if (!after) return false;
      }
    },
    async evaluator(ctx, id, versionId) {
      const res = await ask(
        catalog,
        EvaluatorServiceService.getEvaluator,
        { id: uuid(id, "evaluator"), versionId: versionId && uuid(versionId, "evaluator version") },
        ctx,
        versionId ? "evaluator version" : "evaluator",
      );
      const e = res.evaluator!;
      const v = res.version!;
      return {
        id: e.id,
        spaceId: e.spaceId,
        name: e.name,
        type: e.type,
        versionId: v.id,
        config: JSON.parse(v.content?.configJson ?? "{}") as Record<string, unknown>,
      };
    },
    async integration(ctx, id) {
      const i = await byId(
        catalog,
        IntegrationServiceService.getIntegration,
        ctx,
        id,
        "integration",
      );
      return { id: i.id, type: i.type };
    },
  };
}
