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
import type { Principal } from "@argus/proto/common/v1";
import { isUuid, type Spaces } from "@argus/spaces";

/** Where a subscription's source lives: its space, whose facts authorize it. */
export interface SourcePlace {
  sourceType: WebhookSourceType;
  sourceId: string;
  space: SpaceFacts;
}

/**
 * What reading and changing a source's subscriptions takes (the public API's rules): its UPDATE
 * permission to subscribe or unsubscribe, READ to see them. A space source covers every task of
 * the space, restricted projects included: only a space, organization or account admin.
 */
const RULES: Record<WebhookSourceType, { read: Permission; change: Permission | "ADMIN" }> = {
  PROMPT: { read: "PROMPT_READ", change: "PROMPT_UPDATE" },
  EVALUATOR: { read: "EVALUATOR_READ", change: "EVALUATOR_UPDATE" },
  ONLINE_TASK: { read: "PROJECT_EVAL_TASK_READ", change: "PROJECT_EVAL_TASK_UPDATE" },
  SPACE: { read: "SPACE_READ", change: "ADMIN" },
};

const ADMIN_ROLE_ID = predefinedRole("ADMIN").id;

function isSpaceAdmin(p: Principal, space: SpaceFacts): boolean {
  return (
    isAccountAdmin(p) ||
    p.adminOrganizationIds.includes(space.organizationId) ||
    p.spaceGrants.some((g) => g.roleId === ADMIN_ROLE_ID && g.resourceIds.includes(space.id))
  );
}

export const readsSource = (p: Principal, type: WebhookSourceType, space: SpaceFacts): boolean =>
  hasSpacePermission(p, space, RULES[type].read);

export function changesSource(p: Principal, type: WebhookSourceType, space: SpaceFacts): boolean {
  const rule = RULES[type].change;
  return rule === "ADMIN" ? isSpaceAdmin(p, space) : hasSpacePermission(p, space, rule);
}

/** 404 unless the caller reads the source, 403 unless it may change its subscriptions. */
export function requireChange(ctx: CallContext, place: SourcePlace): void {
  const p = ctx.principal;
  if (!readsSource(p, place.sourceType, place.space)) throw notFound(sourceLabel(place.sourceType));
  if (!changesSource(p, place.sourceType, place.space)) {
    const rule = RULES[place.sourceType].change;
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
 * Prompts and evaluators are the catalog's: it is asked as the caller, so a source the caller
 * cannot read is not found. Spaces are identity's. There is no task service yet, so no task
 * exists: an ONLINE_TASK source is not found (docs: services/webhook-dispatcher/README.md).
 */
export function catalogSources(catalog: Client, spaces: Spaces): Sources {
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
        case "ONLINE_TASK":
          throw notFound("task");
      }
    },
  };
}
