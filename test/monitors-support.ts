import { createHmac, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { Webhook as StandardWebhook } from "standardwebhooks";
import type { Received } from "./webhook-receiver.ts";
import { projectIdOf } from "./spans-support.ts";
import type { Api, Json } from "./support.ts";

/** A span as a test sends it: when it started, how long it took, its name and attributes. */
export interface TestSpan {
  startMs: number;
  durationMs: number;
  name?: string;
  attributes?: Record<string, string | number>;
}

const value = (v: string | number) =>
  typeof v === "string"
    ? { stringValue: v }
    : Number.isInteger(v)
      ? { intValue: String(v) }
      : { doubleValue: v };

/**
 * Spans over OTLP/HTTP (JSON, as an exporter sends it) to the gateway's `POST /v1/traces`, one
 * root span per trace, into the project named `project` of the space (made on first use).
 * Every span must be accepted. The project's public id.
 */
export async function sendTimedSpans(
  api: Api,
  spaceId: string,
  project: string,
  spans: readonly TestSpan[],
): Promise<string> {
  const ns = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
  const body = {
    resourceSpans: [
      {
        resource: {
          attributes: [{ key: "openinference.project.name", value: { stringValue: project } }],
        },
        scopeSpans: [
          {
            scope: { name: "argus-e2e" },
            spans: spans.map((s, i) => ({
              traceId: randomBytes(16).toString("hex"),
              spanId: randomBytes(8).toString("hex"),
              name: s.name ?? `span-${i}`,
              kind: 2,
              startTimeUnixNano: ns(s.startMs),
              endTimeUnixNano: ns(s.startMs + s.durationMs),
              attributes: Object.entries({ "openinference.span.kind": "LLM", ...s.attributes }).map(
                ([key, v]) => ({ key, value: value(v) }),
              ),
              status: { code: 1 },
            })),
          },
        ],
      },
    ],
  };
  const res = await fetch(`${api.stack.baseUrl}/v1/traces`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: api.stack.apiKey,
      "arize-space-id": spaceId,
    },
    body: JSON.stringify(body),
  });
  const answer = await res.text();
  if (res.status !== 200 || answer.includes("rejected"))
    throw new Error(`OTLP: ${res.status} ${answer}`);
  return projectIdOf({ baseUrl: api.stack.baseUrl, apiKey: api.stack.apiKey }, spaceId, project);
}

/** `n` spans of `durationMs` each, starting `agoMs` before now, 1 ms apart. */
export const spansOf = (
  n: number,
  durationMs: number,
  agoMs = 2_000,
  extra: Partial<TestSpan> = {},
) =>
  Array.from({ length: n }, (_, i) => ({ startMs: Date.now() - agoMs + i, durationMs, ...extra }));

/** A TRACING monitor of a project's P95 latency above `ms`, evaluated by hand unless told. */
export const latencyMonitor = (projectId: string, name: string, over: Json = {}): Json => ({
  name,
  type: "TRACING",
  project_id: projectId,
  metric: "P95",
  dimension: { category: "SPAN_ATTRIBUTE", name: "latency_ms" },
  threshold: { type: "MANUAL_SINGLE", operator: "GREATER_THAN", value: 300 },
  evaluation_window_length_seconds: 60,
  manual_evaluation_enabled: true,
  ...over,
});

/**
 * A received delivery, verified with the public Standard Webhooks verifier and Arize's own
 * scheme (`X-Arize-Webhook-Signature`, HMAC-SHA256 of `timestamp.body` keyed with the secret):
 * its parsed payload.
 */
export function verified(secret: string, got: Received): Json {
  new StandardWebhook(secret).verify(got.body, {
    "webhook-id": String(got.headers["webhook-id"]),
    "webhook-timestamp": String(got.headers["webhook-timestamp"]),
    "webhook-signature": String(got.headers["webhook-signature"]),
  });
  const ts = String(got.headers["x-arize-webhook-timestamp"]);
  const hex = createHmac("sha256", secret).update(`${ts}.${got.body}`).digest("hex");
  expect(got.headers["x-arize-webhook-signature"]).toBe(`v1=${hex}`);
  return JSON.parse(got.body) as Json;
}
