/**
 * The soak's writing clients and their ledger: what the API acknowledged, so the checks can
 * read it all back afterwards. Every write carries an `Idempotency-Key`, and an answer that
 * was lost (no answer, a timeout, 429, 5xx) is sent again with the same key until an answer
 * comes or `retryForMs` passes.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";

export interface Answer {
  at: number;
  method: string;
  path: string;
  /** 0: no answer (refused, reset, timed out). */
  status: number;
  contentType: string;
  body: unknown;
  /** Seconds, when the answer said. */
  retryAfter?: number;
  error?: string;
}

/** Every answer the clients saw, for the per-fault error counts and the Problem check. */
export const answers: Answer[] = [];

export interface Api {
  baseUrl: string;
  apiKey: string;
}

const REQUEST_TIMEOUT_MS = 15_000;

/** One HTTP exchange, recorded in `sink`; never throws. */
export async function send(
  api: Api,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  sink: Answer[] = answers,
): Promise<Answer> {
  const at = Date.now();
  try {
    const res = await fetch(api.baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${api.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Kept as text: the Problem check reports it.
    }
    const a: Answer = {
      at,
      method,
      path,
      status: res.status,
      contentType: res.headers.get("content-type") ?? "",
      body: parsed,
      ...(res.headers.get("retry-after")
        ? { retryAfter: Number(res.headers.get("retry-after")) }
        : {}),
    };
    sink.push(a);
    return a;
  } catch (err) {
    const a: Answer = {
      at,
      method,
      path,
      status: 0,
      contentType: "",
      body: undefined,
      error: String(err),
    };
    sink.push(a);
    return a;
  }
}

/**
 * An answer the client cannot read the outcome from: send it again under the same key. A 409
 * with Retry-After is one: an earlier attempt under the key is still in flight.
 */
const lost = (a: Answer) =>
  a.status === 0 ||
  a.status === 408 ||
  a.status === 429 ||
  (a.status === 409 && a.retryAfter !== undefined) ||
  a.status >= 500;

type Outcome =
  /** 2xx: the write was acknowledged. */
  | { kind: "acked"; answer: Answer; retried: boolean; key: string }
  /** A 4xx (other than 408/429), the first answer readable. */
  | { kind: "refused"; answer: Answer; retried: boolean; key: string }
  /**
   * A 409 to the write sent again after a lost answer: its first attempt was applied, and the
   * key's stored answer was lost with that answer (the documented rare window).
   */
  | { kind: "applied"; answer: Answer; retried: boolean; key: string }
  /** Still no readable answer when the retries ran out: applied or not, nobody knows. */
  | { kind: "unknown"; answer: Answer; retried: boolean; key: string };

export interface WriteStats {
  writes: number;
  acked: number;
  /** Writes whose answer was lost at least once (each sent again under its key). */
  retried: number;
  unknown: number;
}

export const writeStats: WriteStats = { writes: 0, acked: 0, retried: 0, unknown: 0 };

/** A write with its Idempotency-Key, sent again with the same key while its answer is lost. */
async function write(
  api: Api,
  method: string,
  path: string,
  body: unknown,
  o: { retryForMs: number },
): Promise<Outcome> {
  const key = randomUUID();
  const started = Date.now();
  writeStats.writes++;
  let retried = false;
  for (let attempt = 1; ; attempt++) {
    const answer = await send(api, method, path, body, { "idempotency-key": key });
    if (answer.status >= 200 && answer.status < 300) {
      writeStats.acked++;
      return { kind: "acked", answer, retried, key };
    }
    if (!lost(answer)) {
      if (!retried || answer.status !== 409) return { kind: "refused", answer, retried, key };
      ledger.conflictsAfterRetry++;
      return { kind: "applied", answer, retried, key };
    }
    if (!retried) writeStats.retried++;
    retried = true;
    if (Date.now() - started > o.retryForMs) {
      writeStats.unknown++;
      return { kind: "unknown", answer, retried, key };
    }
    const hinted = answer.retryAfter;
    const base =
      hinted !== undefined && Number.isFinite(hinted)
        ? hinted * 1000
        : 250 * 2 ** Math.min(attempt, 4);
    await sleep(Math.min(5_000, base) * (0.5 + Math.random() / 2));
  }
}

/** One resource a client made, and what the acknowledged writes say it must look like now. */
interface Resource {
  kind: "tag" | "space" | "dataset" | "webhook";
  id: string;
  path: string;
  /** The names it may have: one, unless a rename's outcome is unknown. */
  names: Set<string>;
  /** "maybe": a delete whose outcome is unknown. */
  deleted: boolean | "maybe";
  /** It was created by a write whose answer was lost first (sent again under its key). */
  retriedCreate: boolean;
}

/** A prompt version written (a webhook delivery each): its commit message is its write's key. */
interface VersionWrite {
  promptId: string;
  message: string;
  outcome: Outcome["kind"];
  retried: boolean;
}

export interface Ledger {
  resources: Resource[];
  versions: VersionWrite[];
  /** Writes whose outcome was "applied" (a 409 when sent again after a lost answer). */
  conflictsAfterRetry: number;
  /** Writes refused for a reason that is not the fault's (a bug in the workload or the API). */
  unexpectedRefusals: Answer[];
}

export const ledger: Ledger = {
  resources: [],
  versions: [],
  conflictsAfterRetry: 0,
  unexpectedRefusals: [],
};

export interface Fixture {
  orgId: string;
  spaceId: string;
  /** The prompts a webhook subscribes to (PROMPT_VERSION_CREATED). */
  promptIds: string[];
  /** Where the workload's own webhooks point (the loopback receiver). */
  hookUrl: string;
}

const PROMPT_VERSION = {
  provider: "OPEN_AI",
  model: "gpt-4o",
  messages: [{ role: "USER", content: "Hello {name}" }],
};

export const promptVersion = (message: string) => ({ ...PROMPT_VERSION, commit_message: message });

/**
 * One client: picks a write at random, over its own resources only (so what each must look
 * like is known), until `stop` is aborted.
 */
export async function runClient(
  api: Api,
  fixture: Fixture,
  n: number,
  stop: AbortSignal,
  retryForMs: number,
): Promise<void> {
  const mine: Resource[] = [];
  let seq = 0;
  const name = (what: string) => `soak-${n}-${what}-${++seq}-${randomUUID().slice(0, 8)}`;
  const w = (method: string, path: string, body: unknown) =>
    write(api, method, path, body, { retryForMs });

  const create = async (kind: Resource["kind"], path: string, body: Record<string, unknown>) => {
    const o = await w("POST", path, body);
    if (o.kind === "acked") {
      const id = (o.answer.body as { id: string }).id;
      const r: Resource = {
        kind,
        id,
        path: `${path}/${id}`,
        names: new Set([String(body.name)]),
        deleted: false,
        retriedCreate: o.retried,
      };
      ledger.resources.push(r);
      mine.push(r);
    } else if (o.kind === "refused") ledger.unexpectedRefusals.push(o.answer);
  };
  const live = (kind: Resource["kind"]) =>
    mine.filter((r) => r.kind === kind && r.deleted === false);
  const pick = <T>(xs: T[]): T | undefined => xs[Math.floor(Math.random() * xs.length)];

  const rename = async (r: Resource, body: (next: string) => Record<string, unknown>) => {
    const next = name(r.kind);
    const o = await w("PATCH", r.path, body(next));
    if (o.kind === "acked" || o.kind === "applied") r.names = new Set([next]);
    else if (o.kind === "unknown") r.names.add(next);
    else ledger.unexpectedRefusals.push(o.answer);
  };
  const remove = async (r: Resource) => {
    const o = await w("DELETE", r.path, undefined);
    if (o.kind === "acked" || o.kind === "applied") r.deleted = true;
    else if (o.kind === "unknown") r.deleted = "maybe";
    // A lost answer, then 404: the first delete was applied.
    else if (o.retried && o.answer.status === 404) r.deleted = true;
    else ledger.unexpectedRefusals.push(o.answer);
  };

  const ops: [number, () => Promise<void>][] = [
    [18, () => create("tag", "/v2/tags", { space_id: fixture.spaceId, name: name("tag") })],
    [
      12,
      async () => {
        const t = pick(live("tag"));
        if (t) await rename(t, (next) => ({ name: next }));
      },
    ],
    [
      8,
      async () => {
        const t = pick(live("tag"));
        if (t) await remove(t);
      },
    ],
    [
      6,
      () => create("space", "/v2/spaces", { organization_id: fixture.orgId, name: name("space") }),
    ],
    [
      6,
      async () => {
        const s = pick(live("space"));
        if (s) await rename(s, (next) => ({ name: next }));
      },
    ],
    [
      10,
      () =>
        create("dataset", "/v2/datasets", {
          space_id: fixture.spaceId,
          name: name("dataset"),
          examples: [{ q: `question ${seq}`, a: "answer" }],
        }),
    ],
    [
      5,
      async () => {
        const d = pick(live("dataset"));
        if (d) await rename(d, (next) => ({ name: next }));
      },
    ],
    [
      5,
      async () => {
        const d = pick(live("dataset"));
        if (d) await remove(d);
      },
    ],
    [
      4,
      () =>
        create("webhook", "/v2/webhooks", {
          organization_id: fixture.orgId,
          name: name("webhook"),
          url: fixture.hookUrl,
        }),
    ],
    [
      4,
      async () => {
        const h = pick(live("webhook"));
        if (h) await rename(h, (next) => ({ name: next }));
      },
    ],
    [
      2,
      async () => {
        const h = pick(live("webhook"));
        if (h) await remove(h);
      },
    ],
    [
      14,
      async () => {
        const promptId = pick(fixture.promptIds)!;
        const message = `soak-${n}-${randomUUID()}`;
        const o = await w("POST", `/v2/prompts/${promptId}/versions`, promptVersion(message));
        // Acked or applied, exactly one version must exist.
        ledger.versions.push({ promptId, message, outcome: o.kind, retried: o.retried });
        if (o.kind === "refused") ledger.unexpectedRefusals.push(o.answer);
      },
    ],
  ];
  const total = ops.reduce((s, [weight]) => s + weight, 0);
  while (!stop.aborted) {
    let r = Math.random() * total;
    const op = ops.find(([weight]) => (r -= weight) < 0)![1];
    await op();
    // A client thinks between writes: the soak is about faults, not throughput.
    await sleep(100 + Math.random() * 200);
  }
}
