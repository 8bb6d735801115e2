import { Webhook } from "standardwebhooks";
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "@argus/eventstore";
import { decodeId } from "@argus/platform";
import { deliverableOf, taskRunFailedOf, testMessage } from "../src/deliveries/deliveryPayloads.ts";
import { nextDelayMs, outcomeOf } from "../src/deliveries/deliverySchedule.ts";
import {
  deliveryHeaders,
  newSigningSecret,
  secretHint,
  signatureHeaders,
} from "../src/deliveries/deliverySigning.ts";

const signed = (secret: string, i: number) => {
  const d = {
    eventId: `01890000-0000-7000-8000-${String(i).padStart(12, "0")}`,
    event: "prompt.version.created",
    body: JSON.stringify({ n: i, text: "héllo ✓", nested: { i } }),
    timestamp: Math.floor(Date.now() / 1000),
  };
  return { d, headers: { ...deliveryHeaders(d), ...signatureHeaders(d, secret) } };
};

describe("signatures", () => {
  it("the standardwebhooks verifier accepts 1000 of 1000 signed deliveries", () => {
    let accepted = 0;
    for (let i = 0; i < 1000; i++) {
      const secret = newSigningSecret();
      const { d, headers } = signed(secret, i);
      expect(new Webhook(secret).verify(d.body, headers)).toEqual(JSON.parse(d.body));
      accepted++;
    }
    expect(accepted).toBe(1000);
  });

  it("accepts a tampered id, timestamp, body or secret 0 times", () => {
    const tamperings = {
      id: (h: Record<string, string>, b: string) => [
        { ...h, "webhook-id": h["webhook-id"] + "x" },
        b,
      ],
      timestamp: (h: Record<string, string>, b: string) => [
        { ...h, "webhook-timestamp": String(Number(h["webhook-timestamp"]) - 1) },
        b,
      ],
      body: (h: Record<string, string>, b: string) => [h, b.replace("1", "2") + " "],
    } as const;
    for (let i = 0; i < 200; i++) {
      const secret = newSigningSecret();
      const { d, headers } = signed(secret, i);
      for (const tamper of Object.values(tamperings)) {
        const [h, b] = tamper(headers, d.body) as [Record<string, string>, string];
        expect(() => new Webhook(secret).verify(b, h)).toThrow();
      }
      expect(() => new Webhook(newSigningSecret()).verify(d.body, headers)).toThrow();
    }
  });

  it("signs the public API's scheme: v1=<hex HMAC of timestamp.body> keyed with the secret string", () => {
    const secret = newSigningSecret();
    const { d, headers } = signed(secret, 7);
    const expected = createHmac("sha256", secret).update(`${d.timestamp}.${d.body}`).digest("hex");
    expect(headers["x-arize-webhook-signature"]).toBe(`v1=${expected}`);
    expect(headers["x-arize-webhook-id"]).toBe(d.eventId);
    expect(headers["x-arize-webhook-event"]).toBe("prompt.version.created");
    expect(headers["x-arize-webhook-timestamp"]).toBe(String(d.timestamp));
  });

  it("secrets are whsec_ and 32 random bytes; the hint keeps the last four characters", () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
    expect(secretHint(a)).toBe(`whsec_…${a.slice(-4)}`);
  });
});

describe("retry schedule", () => {
  const s = { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 5000 };
  it("doubles with jitter between half and all of the step, up to the cap, then stops", () => {
    expect(nextDelayMs(s, 1, undefined, () => 0)).toBe(500);
    expect(nextDelayMs(s, 1, undefined, () => 1)).toBe(1000);
    expect(nextDelayMs(s, 2, undefined, () => 1)).toBe(2000);
    expect(nextDelayMs(s, 3, undefined, () => 0.5)).toBe(3000);
    expect(nextDelayMs({ ...s, maxAttempts: 10 }, 8, undefined, () => 1)).toBe(5000);
    expect(nextDelayMs(s, 4, undefined)).toBeUndefined();
  });
  it("waits at least what Retry-After asks, capped at the longest delay", () => {
    expect(nextDelayMs(s, 1, 3000, () => 0)).toBe(3000);
    expect(nextDelayMs(s, 1, 60_000, () => 0)).toBe(5000);
    expect(nextDelayMs(s, 1, 10, () => 1)).toBe(1000);
  });
  it("2xx is delivered, 410 gone, the rest retried while the schedule allows", () => {
    expect(outcomeOf(200, 5)).toBe("delivered");
    expect(outcomeOf(204, undefined)).toBe("delivered");
    expect(outcomeOf(410, 5)).toBe("gone");
    expect(outcomeOf(500, 5)).toBe("retry");
    expect(outcomeOf(undefined, 5)).toBe("retry");
    expect(outcomeOf(302, undefined)).toBe("failed");
  });
});

const stored = (type: string, data: object): StoredEvent => ({
  globalPosition: 1n,
  transactionId: 1n,
  streamId: "prompt-x",
  streamVersion: 1,
  eventId: "0189aaaa-0000-7000-8000-000000000001",
  type,
  data,
  metadata: {},
  recordedAt: new Date(),
});

describe("payloads", () => {
  const space = "0189aaaa-0000-7000-8000-0000000000aa";
  const prompt = "0189aaaa-0000-7000-8000-0000000000bb";
  const version = "0189aaaa-0000-7000-8000-0000000000cc";
  it("a prompt version's creation is delivered to the prompt's subscribers, with public ids", () => {
    const d = deliverableOf(
      stored("PromptVersionCreated", {
        id: version,
        prompt_id: prompt,
        space_id: space,
        commit_hash: "abc",
        commit_message: "first",
        provider: "openAI",
        model: "gpt-4o",
        messages: [{ role: "user", content: "secret prompt text" }],
        created_by_user_id: "",
        created_at: "2026-11-24T00:00:00.000Z",
      }),
    )!;
    expect(d).toMatchObject({
      sources: [{ type: "PROMPT", id: prompt }],
      eventType: "PROMPT_VERSION_CREATED",
    });
    const body = JSON.parse(d.message.body);
    expect(body).toMatchObject({
      event_id: "0189aaaa-0000-7000-8000-000000000001",
      event: "prompt.version.created",
      event_type: "PROMPT_VERSION_CREATED",
      data: { commit_hash: "abc", created_by_user_id: null },
    });
    expect(decodeId("Prompt", body.data.prompt_id)).toBe(prompt);
    expect(decodeId("PromptVersion", body.data.prompt_version_id)).toBe(version);
    expect(decodeId("Space", body.data.space_id)).toBe(space);
    expect(d.message.event).toBe("prompt.version.created");
  });
  it("labels set and removed, and evaluator versions, have their events; others none", () => {
    const label = { prompt_id: prompt, space_id: space, version_id: version, label: "prod" };
    expect(
      deliverableOf(
        stored("PromptLabelSet", {
          ...label,
          previous_version_id: null,
          set_at: "2026-11-24T00:00:00Z",
        }),
      )?.eventType,
    ).toBe("PROMPT_VERSION_LABELED");
    expect(
      deliverableOf(stored("PromptLabelDeleted", { ...label, deleted_at: "2026-11-24T00:00:00Z" }))
        ?.eventType,
    ).toBe("PROMPT_VERSION_UNLABELED");
    const ev = deliverableOf(
      stored("EvaluatorVersionCreated", {
        id: version,
        evaluator_id: prompt,
        space_id: space,
        evaluator_type: "TEMPLATE",
        commit_hash: "h",
        commit_message: "m",
        config: {},
        created_by_user_id: "",
        created_at: "2026-11-24T00:00:00Z",
      }),
    );
    expect(ev).toMatchObject({
      sources: [{ type: "EVALUATOR", id: prompt }],
      eventType: "EVALUATOR_VERSION_CREATED",
    });
    expect(deliverableOf(stored("PromptUpdated", { id: prompt, space_id: space }))).toBeUndefined();
  });
  it("a test message has a fresh id each time", () => {
    const a = testMessage("0189aaaa-0000-7000-8000-0000000000dd", new Date());
    const b = testMessage("0189aaaa-0000-7000-8000-0000000000dd", new Date());
    expect(a.eventId).not.toBe(b.eventId);
    expect(JSON.parse(a.body)).toMatchObject({ event: "webhook.test", event_type: "TEST" });
  });
});

describe("online task failures", () => {
  const finished = (status: string, is_continuous: boolean) =>
    stored("TaskRunFinished", {
      id: "0189aaaa-0000-7000-8000-0000000000e1",
      task_id: "0189aaaa-0000-7000-8000-0000000000e2",
      space_id: "0189aaaa-0000-7000-8000-0000000000e3",
      status,
      num_successes: 2,
      num_errors: 5,
      num_skipped: 0,
      experiment_id: null,
      failure_reason: "rate limited",
      is_continuous,
      finished_at: "2026-11-24T00:00:00.000Z",
    });
  it("a failed run of a continuous task goes to the task's and its space's subscriptions", () => {
    const d = taskRunFailedOf(finished("FAILED", true))!;
    expect(d.sources).toEqual([
      { type: "ONLINE_TASK", id: "0189aaaa-0000-7000-8000-0000000000e2" },
      { type: "SPACE", id: "0189aaaa-0000-7000-8000-0000000000e3" },
    ]);
    expect(JSON.parse(d.message.body)).toMatchObject({
      event: "online_task.run.failed",
      event_type: "ONLINE_TASK_RUN_FAILED",
      data: { status: "failed", failure_reason: "rate limited", num_errors: 5 },
    });
  });
  it("nothing for a run that did not fail, nor for a task that is not continuous", () => {
    expect(taskRunFailedOf(finished("COMPLETED", true))).toBeUndefined();
    expect(taskRunFailedOf(finished("CANCELLED", true))).toBeUndefined();
    expect(taskRunFailedOf(finished("FAILED", false))).toBeUndefined();
  });
});
