import { streamId, type MonitorChannel } from "@argus/contracts";
import { actorMetadata, DomainError, uuidv7, type CallContext } from "@argus/platform";
import type {
  CreateMonitorRequest,
  DeleteMonitorRequest,
  DeleteMonitorResponse,
  EvaluateMonitorRequest,
  Monitor,
  MonitorEvaluation,
  UpdateMonitorRequest,
} from "@argus/proto/tracing/v1/monitors";
import { authorized, spaceMetadata } from "@argus/spaces";
import type { TracingDeps } from "../deps.ts";
import { loadProject } from "../projects/projectAccess.ts";
import { monitorDecider } from "./monitorDecider.ts";
import { deleteMonitor } from "./monitorDeletion.ts";
import { evaluateMonitor } from "./monitorEvaluation.ts";
import { evaluationMessage, latestEvaluation } from "./monitorEvaluationRows.ts";
import { changesOf } from "./monitorMessages.ts";
import {
  channelUrls,
  findMonitor,
  MONITOR_ACCESS,
  monitorPlaceOf,
  toMonitor,
} from "./monitorRows.ts";
import { rememberWebhook } from "./webhookPort.ts";

/**
 * The webhooks a monitor's channels name must exist, be readable by its writer and belong to
 * the organization of the monitor's space (webhooks are an organization's): else 422, naming
 * the channel. Each is remembered for reading the channel back (its endpoint).
 */
async function checkWebhooks(
  deps: TracingDeps,
  ctx: CallContext,
  channels: readonly MonitorChannel[] | undefined,
  organizationId: string,
): Promise<void> {
  for (const [i, c] of (channels ?? []).entries()) {
    if (c.type !== "WEBHOOK") continue;
    const w = await deps.webhooks.get(ctx, c.webhook_id);
    if (!w)
      throw new DomainError(
        "validation-error",
        `notification_configs[${i}].id names no webhook (it does not exist, or you may not read it)`,
      );
    if (w.organizationId !== organizationId)
      throw new DomainError(
        "validation-error",
        `notification_configs[${i}].id names a webhook of another organization than the monitor's space`,
      );
    await rememberWebhook(deps.pool, {
      id: w.id,
      account_id: ctx.principal.accountId,
      organization_id: w.organizationId,
      url: w.url,
    });
  }
}

async function answer(deps: TracingDeps, id: string): Promise<Monitor> {
  const row = await findMonitor(deps.pool, id);
  if (!row) throw new DomainError("resource-not-found", "monitor not found");
  return toMonitor(row, await channelUrls(deps.pool, [row]));
}

export function monitorCommands(deps: TracingDeps) {
  const load = async (ctx: CallContext, id: string, permission: Parameters<typeof authorized>[4]) =>
    authorized(
      deps.spaces,
      ctx,
      await findMonitor(deps.pool, id),
      MONITOR_ACCESS,
      permission,
      monitorPlaceOf,
    );

  return {
    async createMonitor(req: CreateMonitorRequest, ctx: CallContext): Promise<Monitor> {
      // An unknown or unreadable project is 404, one without MONITOR_CREATE 403.
      const project = await loadProject(deps, ctx, req.projectId, "MONITOR_CREATE");
      const space = await deps.spaces.get(ctx, project.spaceId);
      const changes = changesOf(req.fields);
      await checkWebhooks(deps, ctx, changes.channels, space.organizationId);
      const id = uuidv7(deps.clock.now().getTime());
      await deps.commands.handle(
        streamId("monitor", id),
        monitorDecider,
        {
          type: "CreateMonitor",
          id,
          accountId: ctx.principal.accountId,
          organizationId: space.organizationId,
          spaceId: project.spaceId,
          projectId: project.id,
          monitorType: req.fields?.type,
          changes,
          userId: ctx.principal.userId,
          now: deps.clock.now(),
        },
        spaceMetadata(ctx, project.spaceId),
      );
      return answer(deps, id);
    },

    async updateMonitor(req: UpdateMonitorRequest, ctx: CallContext): Promise<Monitor> {
      const row = await load(ctx, req.id, "MONITOR_UPDATE");
      const changes = changesOf(req.fields);
      await checkWebhooks(deps, ctx, changes.channels, row.organization_id);
      await deps.commands.handle(
        streamId("monitor", row.id),
        monitorDecider,
        { type: "UpdateMonitor", monitorType: req.fields?.type, changes, now: deps.clock.now() },
        spaceMetadata(ctx, row.space_id),
      );
      return answer(deps, row.id);
    },

    async deleteMonitor(
      req: DeleteMonitorRequest,
      ctx: CallContext,
    ): Promise<DeleteMonitorResponse> {
      const row = await load(ctx, req.id, "MONITOR_DELETE");
      const now = deps.clock.now();
      const metadata = spaceMetadata(ctx, row.space_id);
      await deps.commands.transact((scope) => deleteMonitor(scope, row.id, now, metadata));
      return {};
    },

    /**
     * Evaluates now, whatever the schedule (a manual monitor's way to run), as the caller: its
     * change of status, if any, is the caller's event. In a downtime the evaluation is recorded
     * and changes nothing.
     */
    async evaluateMonitor(
      req: EvaluateMonitorRequest,
      ctx: CallContext,
    ): Promise<MonitorEvaluation> {
      const row = await load(ctx, req.id, "MONITOR_TRIGGER");
      const record = await evaluateMonitor(
        {
          pool: deps.pool,
          commands: deps.commands,
          clock: deps.clock,
          statementTimeoutMs: deps.statementTimeoutMs,
        },
        row.id,
        "MANUAL",
        (r) => ({ ...actorMetadata(ctx), space_id: r.space_id }),
      );
      if (record) return evaluationMessage(record);
      // Deleted meanwhile (404), or a newer evaluation was recorded first: that one is the answer.
      const latest = await latestEvaluation(deps.pool, row.id);
      if (!latest) throw new DomainError("resource-not-found", "monitor not found");
      return latest;
    },
  };
}
