import type { Decider } from "@argus/eventstore";
import type {
  WebhookEventType,
  WebhookSourceType,
  WebhookSubscriptionCreated,
  WebhookSubscriptionEvent,
} from "@argus/contracts";
import { DomainError } from "@argus/platform";

/** The events each source type has (the public API's pairing). */
const SOURCE_EVENTS: Readonly<Record<WebhookSourceType, readonly WebhookEventType[]>> = {
  PROMPT: ["PROMPT_VERSION_CREATED", "PROMPT_VERSION_LABELED", "PROMPT_VERSION_UNLABELED"],
  EVALUATOR: ["EVALUATOR_VERSION_CREATED"],
  ONLINE_TASK: ["ONLINE_TASK_RUN_FAILED"],
  SPACE: ["ONLINE_TASK_RUN_FAILED"],
};

const SOURCE_TYPES = Object.keys(SOURCE_EVENTS) as WebhookSourceType[];
const EVENT_TYPES = [...new Set(Object.values(SOURCE_EVENTS).flat())];

export const isSourceType = (v: string): v is WebhookSourceType =>
  (SOURCE_TYPES as string[]).includes(v);
const isEventType = (v: string): v is WebhookEventType => (EVENT_TYPES as string[]).includes(v);

/** 422 unless the event belongs to the source type (checked before any look-up). */
export function requireEventOfSource(
  sourceType: string,
  event: string,
): { sourceType: WebhookSourceType; event: WebhookEventType } {
  if (!isSourceType(sourceType))
    throw new DomainError(
      "unprocessable-entity",
      `source_type must be one of ${SOURCE_TYPES.join(", ")}`,
    );
  if (!isEventType(event))
    throw new DomainError("unprocessable-entity", `event must be one of ${EVENT_TYPES.join(", ")}`);
  if (!SOURCE_EVENTS[sourceType].includes(event))
    throw new DomainError(
      "unprocessable-entity",
      `event ${event} does not belong to source type ${sourceType} (it has ${SOURCE_EVENTS[sourceType].join(", ")})`,
    );
  return { sourceType, event };
}

export type SubscriptionState =
  { status: "none" } | { status: "deleted" } | { status: "live"; id: string; webhookId: string };

export type SubscriptionCommand =
  | { type: "CreateSubscription"; data: WebhookSubscriptionCreated["data"] }
  | { type: "DeleteSubscription"; now: Date };

function decide(
  command: SubscriptionCommand,
  state: SubscriptionState,
): WebhookSubscriptionEvent[] {
  switch (command.type) {
    case "CreateSubscription":
      if (state.status !== "none")
        throw new DomainError("resource-conflict", "subscription exists");
      requireEventOfSource(command.data.source_type, command.data.event);
      return [{ type: "WebhookSubscriptionCreated", data: command.data }];
    case "DeleteSubscription":
      if (state.status !== "live")
        throw new DomainError("resource-not-found", "webhook subscription not found");
      return [
        {
          type: "WebhookSubscriptionDeleted",
          data: {
            id: state.id,
            webhook_id: state.webhookId,
            deleted_at: command.now.toISOString(),
          },
        },
      ];
  }
}

function evolve(state: SubscriptionState, event: WebhookSubscriptionEvent): SubscriptionState {
  switch (event.type) {
    case "WebhookSubscriptionCreated":
      return { status: "live", id: event.data.id, webhookId: event.data.webhook_id };
    case "WebhookSubscriptionDeleted":
      return { status: "deleted" };
  }
}

/** One event of one source delivered to one webhook. */
export const subscriptionDecider: Decider<
  SubscriptionState,
  SubscriptionCommand,
  WebhookSubscriptionEvent
> = { initialState: { status: "none" }, evolve, decide };
