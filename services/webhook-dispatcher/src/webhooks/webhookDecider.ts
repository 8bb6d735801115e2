import type { Decider } from "@argus/eventstore";
import {
  LIMITS,
  textLength,
  type WebhookAuthType,
  type WebhookEvent,
  type WebhookSettings,
} from "@argus/contracts";
import { DomainError, type Lifecycle } from "@argus/platform";

export const invalid = (detail: string): DomainError => new DomainError("invalid-request", detail);

export const AUTH_TYPES: readonly WebhookAuthType[] = ["BEARER", "HMAC_SHA256"];

// Headers the transport owns: a custom value would break or smuggle the request.
const CONNECTION_HEADERS = new Set([
  "host",
  "content-length",
  "content-type",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
]);
// Headers Argus sets on every delivery: a custom one must not forge or hide them.
const DELIVERY_HEADER = /^(authorization|x-arize-webhook-.*|webhook-.*)$/i;
// RFC 9110 token characters.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible characters, spaces and tabs; no CR, LF or NUL.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\uffff]*$/;

function checkName(name: string): string {
  if (name.trim() === "") throw invalid("name must not be empty or whitespace-only");
  if (textLength(name) > LIMITS.WEBHOOK_NAME_MAX)
    throw invalid(`name must be at most ${LIMITS.WEBHOOK_NAME_MAX} characters`);
  return name;
}

function checkTimeout(ms: number): number {
  const { WEBHOOK_TIMEOUT_MS_MIN: min, WEBHOOK_TIMEOUT_MS_MAX: max } = LIMITS;
  if (!Number.isInteger(ms) || ms < min || ms > max)
    throw invalid(`timeout_ms must be an integer from ${min} to ${max}`);
  return ms;
}

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > LIMITS.WEBHOOK_HEADERS_MAX)
    throw invalid(`headers may hold at most ${LIMITS.WEBHOOK_HEADERS_MAX} entries`);
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    if (!TOKEN.test(name))
      throw invalid(`header name ${JSON.stringify(name)} is not a valid HTTP header name`);
    const lower = name.toLowerCase();
    if (CONNECTION_HEADERS.has(lower))
      throw invalid(`header ${name} is managed by the connection and cannot be set`);
    if (DELIVERY_HEADER.test(name))
      throw invalid(`header ${name} is set by Argus on every delivery and cannot be overridden`);
    if (seen.has(lower)) throw invalid(`header ${name} is given twice`);
    seen.add(lower);
    if (!FIELD_VALUE.test(value))
      throw invalid(`header ${name} has a value with control characters`);
  }
  return headers;
}

/** An Authorization value must be one header line. */
export function checkAuthToken(token: string): string {
  if (token.trim() === "") throw invalid("auth_token must not be empty");
  if (!FIELD_VALUE.test(token)) throw invalid("auth_token must not contain control characters");
  return token;
}

export type WebhookState = Lifecycle<{
  id: string;
  organizationId: string;
  authType: WebhookAuthType;
  settings: WebhookSettings;
}>;

export type WebhookCommand =
  | {
      type: "CreateWebhook";
      id: string;
      accountId: string;
      organizationId: string;
      authType: WebhookAuthType;
      signingSecretHint: string;
      settings: WebhookSettings;
      userId: string;
      now: Date;
    }
  /** The settings present change; the rest keep their values. */
  | { type: "UpdateWebhook"; changes: Partial<WebhookSettings>; now: Date }
  | { type: "DeleteWebhook"; now: Date };

const notFound = () => new DomainError("resource-not-found", "webhook not found");

function checked(s: WebhookSettings): WebhookSettings {
  checkName(s.name);
  checkTimeout(s.timeout_ms);
  checkHeaders(s.headers);
  return s;
}

function decide(command: WebhookCommand, state: WebhookState): WebhookEvent[] {
  switch (command.type) {
    case "CreateWebhook": {
      if (state.status !== "none") throw new DomainError("resource-conflict", "webhook exists");
      if (command.authType === "HMAC_SHA256" && command.settings.has_auth_token)
        throw invalid("auth_token is only valid when auth_type is BEARER");
      const at = command.now.toISOString();
      return [
        {
          type: "WebhookCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            organization_id: command.organizationId,
            auth_type: command.authType,
            signing_secret_hint: command.signingSecretHint,
            ...checked(command.settings),
            created_by_user_id: command.userId,
            created_at: at,
          },
        },
      ];
    }
    case "UpdateWebhook": {
      if (state.status !== "live") throw notFound();
      if (state.authType === "HMAC_SHA256" && command.changes.has_auth_token)
        throw invalid("auth_token is only valid when the webhook's auth_type is BEARER");
      const settings = checked({ ...state.settings, ...command.changes });
      return [
        {
          type: "WebhookUpdated",
          data: {
            id: state.id,
            organization_id: state.organizationId,
            ...settings,
            updated_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "DeleteWebhook":
      if (state.status !== "live") throw notFound();
      return [
        {
          type: "WebhookDeleted",
          data: {
            id: state.id,
            organization_id: state.organizationId,
            deleted_at: command.now.toISOString(),
          },
        },
      ];
  }
}

const settingsOf = (d: WebhookSettings): WebhookSettings => ({
  name: d.name,
  description: d.description,
  url: d.url,
  timeout_ms: d.timeout_ms,
  headers: d.headers,
  has_auth_token: d.has_auth_token,
});

function evolve(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case "WebhookCreated":
      return {
        status: "live",
        id: event.data.id,
        organizationId: event.data.organization_id,
        authType: event.data.auth_type,
        settings: settingsOf(event.data),
      };
    case "WebhookUpdated":
      return state.status === "live" ? { ...state, settings: settingsOf(event.data) } : state;
    case "WebhookDeleted":
      return { status: "deleted" };
  }
}

/** A webhook: its settings (checked whole on every change) and its fixed auth type. */
export const webhookDecider: Decider<WebhookState, WebhookCommand, WebhookEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
