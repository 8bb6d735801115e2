/**
 * The webhook dispatcher's events (`<root>.webhook-dispatcher.<aggregate>.<Type>`). Credentials
 * never enter an event: the bearer token and the signing secret live beside the events, in the
 * dispatcher's own table. Deliveries and their attempts are operational rows, not events.
 */

/** BEARER: `auth_token` sent verbatim as Authorization; HMAC_SHA256: signed deliveries. */
export type WebhookAuthType = "BEARER" | "HMAC_SHA256";

export type WebhookSourceType = "PROMPT" | "EVALUATOR" | "ONLINE_TASK" | "SPACE";

export type WebhookEventType =
  | "PROMPT_VERSION_CREATED"
  | "PROMPT_VERSION_LABELED"
  | "PROMPT_VERSION_UNLABELED"
  | "EVALUATOR_VERSION_CREATED"
  | "ONLINE_TASK_RUN_FAILED"
  /**
   * A monitor's transitions, delivered to the webhooks named as its channels (no
   * subscription: the monitor's `notification_configs` say who is told).
   */
  | "MONITOR_TRIGGERED"
  | "MONITOR_CLEARED";

/** A webhook's changeable settings; an update event carries them whole. */
export interface WebhookSettings {
  name: string;
  description: string;
  url: string;
  timeout_ms: number;
  /** Custom headers sent with each delivery (the spec returns them on the Webhook). */
  headers: Record<string, string>;
  /** Whether a bearer token is stored (never the token). */
  has_auth_token: boolean;
}

export interface WebhookCreated {
  type: "WebhookCreated";
  data: WebhookSettings & {
    id: string;
    account_id: string;
    organization_id: string;
    auth_type: WebhookAuthType;
    /** `whsec_…abcd` for HMAC_SHA256; "" for BEARER. */
    signing_secret_hint: string;
    created_by_user_id: string;
    created_at: string;
  };
}

export interface WebhookUpdated {
  type: "WebhookUpdated";
  data: WebhookSettings & { id: string; organization_id: string; updated_at: string };
}

/** Deletes the webhook with its subscriptions, deliveries and attempts. */
export interface WebhookDeleted {
  type: "WebhookDeleted";
  data: { id: string; organization_id: string; deleted_at: string };
}

export type WebhookEvent = WebhookCreated | WebhookUpdated | WebhookDeleted;

export interface WebhookSubscriptionCreated {
  type: "WebhookSubscriptionCreated";
  data: {
    id: string;
    account_id: string;
    organization_id: string;
    webhook_id: string;
    source_type: WebhookSourceType;
    source_id: string;
    /** The source's space (a SPACE source: itself); readers are authorized on it. */
    space_id: string;
    event: WebhookEventType;
    created_at: string;
  };
}

/** Removed by a caller, or because its source or webhook went away. */
export interface WebhookSubscriptionDeleted {
  type: "WebhookSubscriptionDeleted";
  data: { id: string; webhook_id: string; deleted_at: string };
}

export type WebhookSubscriptionEvent = WebhookSubscriptionCreated | WebhookSubscriptionDeleted;

export type WebhookDispatcherEvent = WebhookEvent | WebhookSubscriptionEvent;
