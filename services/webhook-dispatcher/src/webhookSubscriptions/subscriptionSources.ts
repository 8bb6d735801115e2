import type { Client } from "@grpc/grpc-js";
import type { WebhookSourceType } from "@argus/contracts";
import {
  DomainError,
  callUnary,
  fromGrpcError,
  hasSpacePermission,
  isAccountAdmin,
  notFound,
  onwardCall,
  predefinedRole,
  type CallContext,
  type Permission,
  type SpaceFacts,
} from "@argus/platform";
import { EvaluatorServiceService } from "@argus/proto/catalog/v1/evaluators";
import { PromptServiceService } from "@argus/proto/catalog/v1/prompts";
import { TaskServiceService } from "@argus/proto/tasks/v1/tasks";
import type { Principal } from "@argus/proto/common/v1";
import { isUuid, type Spaces } from "@argus/spaces";

/** Where a subscription's source lives: its space, whose facts authorize it. */
export interface SourcePlace {
  sourceType: WebhookSourceType;
  sourceId: string;
  space: SpaceFacts;
  /** An ONLINE_TASK source's kind: a dataset task answers to EXPERIMENT_EVAL_TASK_*. */
  taskKind?: "project" | "dataset";
}

/**
 * What reading and changing a source's subscriptions takes (the public API's rules): its UPDATE
 * permission to subscribe or unsubscribe, READ to see them. A space source covers every task of
 * the space, restricted projects included: only a space, organization or account admin.
 */
type Rule = { read: Permission; change: Permission | "ADMIN" };
const RULES: Record<WebhookSourceType, Rule> = {
  PROMPT: { read: "PROMPT_READ", change: "PROMPT_UPDATE" },
  EVALUATOR: { read: "EVALUATOR_READ", change: "EVALUATOR_UPDATE" },
  ONLINE_TASK: { read: "PROJECT_EVAL_TASK_READ", change: "PROJECT_EVAL_TASK_UPDATE" },
  SPACE: { read: "SPACE_READ", change: "ADMIN" },
};
const DATASET_TASK: Rule = {
  read: "EXPERIMENT_EVAL_TASK_READ",
  change: "EXPERIMENT_EVAL_TASK_UPDATE",
};
const ruleOf = (type: WebhookSourceType, taskKind?: "project" | "dataset"): Rule =>
  type === "ONLINE_TASK" && taskKind === "dataset" ? DATASET_TASK : RULES[type];

const ADMIN_ROLE_ID = predefinedRole("ADMIN").id;

function isSpaceAdmin(p: Principal, space: SpaceFacts): boolean {
  return (
    isAccountAdmin(p) ||
    p.adminOrganizationIds.includes(space.organizationId) ||
    p.spaceGrants.some((g) => g.roleId === ADMIN_ROLE_ID && g.resourceIds.includes(space.id))
  );
}

/** Whether the caller reads the source; a task of unknown kind is read by either permission. */
export const readsSource = (
  p: Principal,
  type: WebhookSourceType,
  space: SpaceFacts,
  taskKind?: "project" | "dataset",
): boolean =>
  type === "ONLINE_TASK" && taskKind === undefined
    ? hasSpacePermission(p, space, RULES.ONLINE_TASK.read) ||
      hasSpacePermission(p, space, DATASET_TASK.read)
    : hasSpacePermission(p, space, ruleOf(type, taskKind).read);

function changesSource(p: Principal, place: SourcePlace): boolean {
  const rule = ruleOf(place.sourceType, place.taskKind).change;
  return rule === "ADMIN" ? isSpaceAdmin(p, place.space) : hasSpacePermission(p, place.space, rule);
}

/** 404 unless the caller reads the source, 403 unless it may change its subscriptions. */
export function requireChange(ctx: CallContext, place: SourcePlace): void {
  const p = ctx.principal;
  if (!readsSource(p, place.sourceType, place.space, place.taskKind))
    throw notFound(sourceLabel(place.sourceType));
  if (!changesSource(p, place)) {
    const rule = ruleOf(place.sourceType, place.taskKind).change;
    throw new DomainError(
      "access-forbidden",
      rule === "ADMIN"
        ? "subscribing to a space requires the space's, organization's or account's admin role"
        : `changing this source's subscriptions requires ${rule}`,
    );
  }
}

const sourceLabel = (type: WebhookSourceType): string =>
  ({ PROMPT: "prompt", EVALUATOR: "evaluator", ONLINE_TASK: "task", SPACE: "space" })[type];

export interface Sources {
  /** The source as the caller may see it (else 404): its space's facts as identity has them. */
  locate(ctx: CallContext, type: WebhookSourceType, id: string): Promise<SourcePlace>;
}

/**
 * Prompts and evaluators are the catalog's, tasks the task runner's: each is asked as the
 * caller, so a source the caller cannot read is not found. Spaces are identity's. An
 * ONLINE_TASK source must be an evaluation task (422 for a RUN_EXPERIMENT task).
 */
export function serviceSources(catalog: Client, tasks: Client, spaces: Spaces): Sources {
  const spaceOf = async (ctx: CallContext, type: WebhookSourceType, spaceId: string) => {
    const facts = await spaces.facts(ctx, spaceId);
    if (!facts) throw notFound(sourceLabel(type));
    return facts.space;
  };
  const ask = async <T>(type: WebhookSourceType, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      const e = fromGrpcError(err);
      throw e.type === "resource-not-found" ? notFound(sourceLabel(type)) : e;
    }
  };
  return {
    async locate(ctx, type, id) {
      if (!isUuid(id)) throw notFound(sourceLabel(type));
      switch (type) {
        case "PROMPT": {
          const res = await ask(type, () =>
            callUnary(
              catalog,
              PromptServiceService.getPrompt,
              { id, versionId: "", label: "" },
              onwardCall(ctx),
            ),
          );
          return {
            sourceType: type,
            sourceId: id,
            space: await spaceOf(ctx, type, res.prompt!.spaceId),
          };
        }
        case "EVALUATOR": {
          const res = await ask(type, () =>
            callUnary(
              catalog,
              EvaluatorServiceService.getEvaluator,
              { id, versionId: "" },
              onwardCall(ctx),
            ),
          );
          return {
            sourceType: type,
            sourceId: id,
            space: await spaceOf(ctx, type, res.evaluator!.spaceId),
          };
        }
        case "SPACE": {
          const space = await spaces.get(ctx, id);
          return { sourceType: type, sourceId: id, space };
        }
        case "ONLINE_TASK": {
          const task = await ask(type, () =>
            callUnary(tasks, TaskServiceService.getTask, { id }, onwardCall(ctx)),
          );
          if (task.type === "RUN_EXPERIMENT")
            throw new DomainError(
              "unprocessable-entity",
              "an ONLINE_TASK source must be an evaluation task, not a RUN_EXPERIMENT task",
            );
          return {
            sourceType: type,
            sourceId: id,
            space: await spaceOf(ctx, type, task.spaceId),
            taskKind: task.projectId ? "project" : "dataset",
          };
        }
      }
    },
  };
}
