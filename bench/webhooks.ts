import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Api } from "./datasets.ts";
import type { Operation, OperationBenchmark } from "./operations.ts";
import { withBenchStack } from "./stack.ts";

const VERSION = {
  commit_message: "bench",
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [{ role: "USER", content: "Hello {name}" }],
};
/** How long a delivery may take before the operation counts as failed. */
const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * The customer's endpoint: answers 200 at once and resolves whoever waits for the delivery of a
 * prompt version; `/dead` never answers (a receiver that hangs).
 */
async function startReceiver() {
  const waiting = new Map<string, () => void>();
  // Deliveries that came before anyone waited for them (before the API answered the write).
  const early = new Set<string>();
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    if (req.url === "/dead") {
      hung.push(res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200).end("ok");
      const body = JSON.parse(Buffer.concat(chunks).toString()) as {
        data?: { prompt_version_id?: string };
      };
      const version = body.data?.prompt_version_id;
      if (!version) return;
      const waiter = waiting.get(version);
      if (waiter) waiter();
      else early.add(version);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/hook`,
    deadUrl: `${base}/dead`,
    /** Resolves when the delivery of `versionId` has arrived. */
    expect(versionId: string): Promise<void> {
      if (early.delete(versionId)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(versionId);
          reject(new Error(`no delivery of ${versionId} within ${DELIVERY_TIMEOUT_MS} ms`));
        }, DELIVERY_TIMEOUT_MS);
        waiting.set(versionId, () => {
          clearTimeout(timer);
          waiting.delete(versionId);
          resolve();
        });
      });
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

interface Setup {
  api: Api;
  receiver: Receiver;
  spaceId: string;
  orgId: string;
  pids: Record<string, number>;
}

async function setUp(b: Parameters<Parameters<typeof withBenchStack>[0]>[0]): Promise<Setup> {
  const api = new Api(b.stack);
  const receiver = await startReceiver();
  b.onStop(() => receiver.close());
  const { organizations } = await api.call<{ organizations: { id: string }[] }>(
    "GET",
    "/v2/organizations",
    200,
  );
  const p = b.stack.processes;
  return {
    api,
    receiver,
    spaceId: await api.defaultSpaceId(),
    orgId: organizations[0]!.id,
    pids: {
      gateway: p.gateway!.pid,
      catalog: p.catalog!.pid,
      "webhook-dispatcher": p["webhook-dispatcher"]!.pid,
    },
  };
}

const promptIn = async (s: Setup, name: string) =>
  (
    await s.api.call<{ id: string }>("POST", "/v2/prompts", 201, {
      space_id: s.spaceId,
      name,
      version: VERSION,
    })
  ).id;

/** A prompt whose new versions go to `urls` (a webhook each, subscribed to PROMPT_VERSION_CREATED). */
async function subscribedPrompt(s: Setup, name: string, urls: string[]): Promise<string> {
  const prompt = await promptIn(s, name);
  for (const [i, url] of urls.entries()) {
    const hook = await s.api.call<{ id: string }>("POST", "/v2/webhooks", 201, {
      organization_id: s.orgId,
      name: `${name}-${i}`,
      url,
      timeout_ms: 60_000,
    });
    await s.api.call("POST", "/v2/webhook-subscriptions", 201, {
      webhook_id: hook.id,
      source_type: "PROMPT",
      source_id: prompt,
      event: "PROMPT_VERSION_CREATED",
    });
  }
  return prompt;
}

const newVersion = (s: Setup, prompt: string) =>
  s.api.call<{ id: string }>("POST", `/v2/prompts/${prompt}/versions`, 201, VERSION);

/** The write, then the wait until the receiver has its delivery: commit → received. */
function delivered(s: Setup, prompt: string, name: string): Operation {
  return {
    name,
    pids: s.pids,
    async run() {
      const version = await newVersion(s, prompt);
      await s.receiver.expect(version.id);
    },
  };
}

const env = { ARGUS_WEBHOOK_ALLOW_LOOPBACK: "true" };

/**
 * Issue "Webhook dispatcher": event commit → webhook received. Subject: a new prompt version
 * through the API, then the wait until the subscribed receiver (on loopback, answering 200 at
 * once) has its delivery — the event's commit, the relay to JetStream, the dispatcher's
 * consumer making the delivery row, pg_notify, the claim and the POST. Baseline: the same API
 * write on an unsubscribed prompt, then a direct POST of a delivery-sized body to the same
 * receiver. Goal: subject p99 − baseline p99 ≤ 100 ms.
 */
export async function webhookDeliveryBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async (b) => {
    const s = await setUp(b);
    const subscribed = await subscribedPrompt(s, `delivery-${Date.now()}`, [s.receiver.url]);
    const plain = await promptIn(s, `plain-${Date.now()}`);
    return {
      kind: "operations",
      name: "event commit → webhook received (new prompt version, then its delivery) vs the same write and a direct POST",
      maxOpsPerSlice: 2000,
      subject: delivered(s, subscribed, "delivered"),
      baseline: {
        name: "direct",
        pids: s.pids,
        async run() {
          const version = await newVersion(s, plain);
          const res = await fetch(s.receiver.url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ event: "prompt.version.created", data: { other: version.id } }),
          });
          if (res.status !== 200) throw new Error(`direct POST: ${res.status}`);
          await res.text();
        },
      },
      stop: b.stop,
    };
  }, env);
}

/**
 * The same delivery with a dead neighbour — a second webhook on the same prompt whose endpoint
 * never answers (timeout 60 s), so its deliveries pile up and hold all the slots one webhook
 * gets — versus without one. Goal: the p99 ratio stays at about 1.
 */
export async function webhookDeadNeighbourBenchmark(): Promise<OperationBenchmark> {
  return withBenchStack(async (b) => {
    const s = await setUp(b);
    const now = Date.now();
    const crowded = await subscribedPrompt(s, `crowded-${now}`, [
      s.receiver.url,
      s.receiver.deadUrl,
    ]);
    const alone = await subscribedPrompt(s, `alone-${now}`, [s.receiver.url]);
    return {
      kind: "operations",
      name: "event commit → webhook received with a never-answering webhook on the same prompt vs without",
      maxOpsPerSlice: 2000,
      subject: delivered(s, crowded, "dead-nbr"),
      baseline: delivered(s, alone, "alone"),
      stop: b.stop,
    };
  }, env);
}
