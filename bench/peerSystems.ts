// The two systems of the peer benchmark behind one interface: each seeds, reads back and is
// loaded through its own public API only (Argus: /v2 REST and OTLP; Phoenix: /v1 REST and OTLP).
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Stack } from "@argus/testkit";
import type { Api } from "./datasets.ts";
import type { Target } from "./load.ts";
import type { PeerExample } from "./peerReport.ts";
import type { Phoenix } from "./phoenix.ts";

/** One version of the benchmark's prompt, as both systems store it. */
export interface PeerPromptVersion {
  model: string;
  content: string;
}

/** The seeded things a system's targets read, by that system's ids. */
export interface PeerIds {
  projectId: string;
  examplesDatasetId: string;
  promptId: string;
  spansProjectId: string;
}

/** The read operations both systems have, as closed-loop targets on the seeded data. */
export type PeerReads = Record<
  "project" | "datasets" | "examples" | "prompt" | "spans",
  Omit<Target, "pids">
>;

export interface PeerSystem {
  name: "Argus" | "Phoenix";
  /** The processes serving it, whose CPU time is measured. */
  pids(): Record<string, number>;
  createProject(name: string): Promise<string>;
  createDataset(name: string, examples: readonly PeerExample[]): Promise<string>;
  deleteDataset(id: string): Promise<void>;
  /** The prompt with these versions, oldest first; its id. */
  createPrompt(name: string, versions: readonly PeerPromptVersion[]): Promise<string>;
  /**
   * One OTLP/HTTP protobuf export, sent again as an exporter does while it is refused for now;
   * throws unless every span was taken. Resolves to the refusals, by cause.
   */
  sendOtlp(body: Uint8Array): Promise<Record<string, number>>;
  /** The project ingestion made for `name`, or undefined while there is none. */
  projectIdNamed(name: string): Promise<string | undefined>;
  /** Which of these span ids a span query on the project returns. */
  spansVisible(projectId: string, spanIds: readonly string[]): Promise<string[]>;
  /** Every span of the project, counted page by page through the API. */
  countSpans(projectId: string): Promise<number>;
  // Reads for the equality check, reduced to what both must agree on.
  projectName(id: string): Promise<string>;
  /** Every dataset name in the list's order, and the first page of `limit`. */
  datasetNames(limit: number): Promise<{ all: string[]; page: string[] }>;
  examples(datasetId: string): Promise<PeerExample[]>;
  latestPrompt(promptId: string): Promise<PeerPromptVersion>;
  spanPage(projectId: string, limit: number): Promise<string[]>;
  reads(ids: PeerIds, limit: number): PeerReads;
}

/** What an OTLP exporter sends again: throttled, unavailable, timed out (the OTLP/HTTP spec). */
const RETRYABLE = new Set([429, 502, 503, 504]);

/** An answer other than the one expected; `status` tells a transient one (`isTransient`). */
class HttpError extends Error {
  readonly status: number;
  constructor(what: string, status: number, text: string) {
    super(`${what}: ${status} ${text.slice(0, 300)}`);
    this.status = status;
  }
}

/** Refused for now, as an exporter or a client that retries sees it: throttled, busy, timed out, or no connection. */
export function isTransient(err: unknown): boolean {
  return (err instanceof HttpError && RETRYABLE.has(err.status)) || err instanceof TypeError;
}

async function json<T>(res: Response, what: string, status: number): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new HttpError(what, res.status, text);
  return (text ? JSON.parse(text) : {}) as T;
}

/** JSON calls to a system's API: `method path`, a body (JSON text or a value), the status expected. */
function caller(name: string, at: () => { baseUrl: string; headers: Record<string, string> }) {
  return async <T = Record<string, unknown>>(
    method: string,
    path: string,
    status: number,
    body?: unknown,
  ): Promise<T> => {
    const { baseUrl, headers } = at();
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...headers,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined
        ? {}
        : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    return json<T>(res, `${name} ${method} ${path}`, status);
  };
}

const q = encodeURIComponent;

/** Argus through its gateway, with the stack's admin key in its default space. */
export function argusSystem(stack: Stack, api: Api, spaceId: string): PeerSystem {
  const base = stack.baseUrl;
  const call = caller("Argus", () => ({ baseUrl: base, headers: api.headers }));
  const listSpans = (
    projectId: string,
    limit: number,
    extra: Record<string, unknown> = {},
    cursor?: string,
  ) =>
    call<{
      spans: { context: { span_id: string } }[];
      pagination: { has_more: boolean; next_cursor?: string };
    }>("POST", `/v2/spans?limit=${limit}${cursor ? `&cursor=${q(cursor)}` : ""}`, 200, {
      project_id: projectId,
      ...extra,
    });
  return {
    name: "Argus",
    pids: () => Object.fromEntries(Object.entries(stack.processes).map(([n, p]) => [n, p.pid])),
    async createProject(name) {
      return (await call<{ id: string }>("POST", "/v2/projects", 201, { name, space_id: spaceId }))
        .id;
    },
    async createDataset(name, examples) {
      const body = JSON.stringify({ name, space_id: spaceId, examples });
      return (await call<{ id: string }>("POST", "/v2/datasets", 201, body)).id;
    },
    async deleteDataset(id) {
      await call("DELETE", `/v2/datasets/${q(id)}`, 204);
    },
    async createPrompt(name, versions) {
      const version = (v: PeerPromptVersion, i: number) => ({
        commit_message: `version ${i + 1}`,
        provider: "OPEN_AI",
        model: v.model,
        messages: [{ role: "SYSTEM", content: v.content }],
      });
      const [first, ...rest] = versions;
      const { id } = await call<{ id: string }>("POST", "/v2/prompts", 201, {
        space_id: spaceId,
        name,
        version: version(first!, 0),
      });
      for (const [i, v] of rest.entries()) {
        await call("POST", `/v2/prompts/${q(id)}/versions`, 201, version(v, i + 1));
      }
      return id;
    },
    sendOtlp: (body) =>
      exportSpans(
        `${base}/v1/traces`,
        { authorization: stack.apiKey, "arize-space-id": spaceId },
        body,
      ),
    async projectIdNamed(name) {
      const { projects } = await call<{ projects: { id: string; name: string }[] }>(
        "GET",
        `/v2/projects?space_id=${q(spaceId)}&name=${q(name)}`,
        200,
      );
      return projects.find((p) => p.name === name)?.id;
    },
    async spansVisible(projectId, spanIds) {
      const filter = `context.span_id IN (${spanIds.map((id) => `'${id}'`).join(", ")})`;
      const { spans } = await listSpans(projectId, Math.min(spanIds.length, 500), { filter });
      return spans.map((s) => s.context.span_id);
    },
    async countSpans(projectId) {
      let count = 0;
      let cursor: string | undefined;
      for (;;) {
        const page = await listSpans(projectId, 500, {}, cursor);
        count += page.spans.length;
        if (!page.pagination.has_more) return count;
        cursor = page.pagination.next_cursor;
      }
    },
    async projectName(id) {
      return (await call<{ name: string }>("GET", `/v2/projects/${q(id)}`, 200)).name;
    },
    async datasetNames(limit) {
      const all: string[] = [];
      let page: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const res = await call<{
          datasets: { name: string }[];
          pagination: { has_more: boolean; next_cursor?: string };
        }>(
          "GET",
          `/v2/datasets?space_id=${q(spaceId)}&limit=${limit}${cursor ? `&cursor=${q(cursor)}` : ""}`,
          200,
        );
        if (all.length === 0) page = res.datasets.map((d) => d.name);
        all.push(...res.datasets.map((d) => d.name));
        if (!res.pagination.has_more) return { all, page };
        cursor = res.pagination.next_cursor;
      }
    },
    async examples(datasetId) {
      const { examples } = await call<{ examples: (PeerExample & { id: string })[] }>(
        "GET",
        `/v2/datasets/${q(datasetId)}/examples?limit=500`,
        200,
      );
      return examples.map(({ question, answer, n }) => ({ question, answer, n }));
    },
    async latestPrompt(promptId) {
      const { version } = await call<{
        version: { model: string; messages: { content: string }[] };
      }>("GET", `/v2/prompts/${q(promptId)}`, 200);
      return { model: version.model, content: version.messages[0]!.content };
    },
    async spanPage(projectId, limit) {
      return (await listSpans(projectId, limit)).spans.map((s) => s.context.span_id);
    },
    reads(ids, limit) {
      const headers = api.headers;
      return {
        project: { name: "Argus", url: `${base}/v2/projects/${q(ids.projectId)}`, headers },
        datasets: {
          name: "Argus",
          url: `${base}/v2/datasets?space_id=${q(spaceId)}&limit=${limit}`,
          headers,
        },
        examples: {
          name: "Argus",
          url: `${base}/v2/datasets/${q(ids.examplesDatasetId)}/examples?limit=${limit}`,
          headers,
        },
        prompt: { name: "Argus", url: `${base}/v2/prompts/${q(ids.promptId)}`, headers },
        spans: {
          name: "Argus",
          url: `${base}/v2/spans?limit=${limit}`,
          headers,
          body: JSON.stringify({ project_id: ids.spansProjectId }),
        },
      };
    },
  };
}

const BACKOFF_MS = { first: 100, max: 5000 };
/** An export still refused after this long fails (100 000 spans into Phoenix took ~1 h here). */
const EXPORT_DEADLINE_MS = 6 * 3600_000;

/**
 * POST one OTLP/HTTP protobuf export to `url`, the same way to both systems, as an exporter
 * does: an answer of 429, 502, 503 or 504, or a connection that fails, is sent again after the
 * answer's Retry-After, else a backoff (100 ms doubling to 5 s). Phoenix answers 503 while its
 * span queue (20 000 by default) is full, which holds minutes of its inserts, so the wait never
 * idles it, and resending megabytes every 100 ms would load the server measured; Argus's gateway
 * answers 504 (Retry-After 1) when the tracing service does not answer an export within its
 * deadline. Resolves to the refusals by cause; throws on any other answer, or a partial success.
 */
export async function exportSpans(
  url: string,
  headers: Record<string, string>,
  body: Uint8Array,
): Promise<Record<string, number>> {
  const refused: Record<string, number> = {};
  const deadline = performance.now() + EXPORT_DEADLINE_MS;
  for (let backoff = BACKOFF_MS.first; ; backoff = Math.min(2 * backoff, BACKOFF_MS.max)) {
    let cause: string;
    let waitMs = backoff;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/x-protobuf" },
        body,
      });
      const answer = Buffer.from(await res.arrayBuffer());
      // An ExportTraceServiceResponse without partial_success is empty.
      if (res.status === 200 && answer.length === 0) return refused;
      if (!RETRYABLE.has(res.status)) {
        throw new HttpError(`POST ${url}`, res.status, answer.toString("utf8"));
      }
      cause = `status ${res.status}`;
      const retryAfter = Number(res.headers.get("retry-after"));
      if (Number.isFinite(retryAfter) && retryAfter > 0) waitMs = retryAfter * 1000;
    } catch (err) {
      // fetch's own failure (a TypeError): the connection failed, no answer came.
      if (!(err instanceof TypeError)) throw err;
      const code = (err.cause as { code?: unknown } | undefined)?.code;
      cause = `${err.message}${typeof code === "string" ? ` (${code})` : ""}`;
    }
    refused[cause] = (refused[cause] ?? 0) + 1;
    if (performance.now() + waitMs > deadline) {
      throw new Error(
        `POST ${url}: still refused after ${EXPORT_DEADLINE_MS / 1000} s (${JSON.stringify(refused)})`,
      );
    }
    await sleep(waitMs);
  }
}

/** Phoenix on its REST API, with its SYSTEM key when authentication is on. */
export function phoenixSystem(phoenix: () => Phoenix): PeerSystem {
  const call = caller("Phoenix", phoenix);
  type SpansPage = { data: { context: { span_id: string } }[]; next_cursor: string | null };
  return {
    name: "Phoenix",
    pids: () => ({ phoenix: phoenix().pid }),
    async createProject(name) {
      return (await call<{ data: { id: string } }>("POST", "/v1/projects", 200, { name })).data.id;
    },
    async createDataset(name, examples) {
      // `sync=true`: answered once the dataset is written, as Argus answers its create.
      const body = JSON.stringify({
        action: "create",
        name,
        inputs: examples.map((e) => ({ question: e.question })),
        outputs: examples.map((e) => ({ answer: e.answer })),
        metadata: examples.map((e) => ({ n: e.n })),
      });
      return (
        await call<{ data: { dataset_id: string } }>(
          "POST",
          "/v1/datasets/upload?sync=true",
          200,
          body,
        )
      ).data.dataset_id;
    },
    async deleteDataset(id) {
      await call("DELETE", `/v1/datasets/${q(id)}`, 204);
    },
    async createPrompt(name, versions) {
      for (const v of versions) {
        // Posting a prompt of an existing name adds a version to it.
        await call("POST", "/v1/prompts", 200, {
          prompt: { name },
          version: {
            model_provider: "OPENAI",
            model_name: v.model,
            template: { type: "chat", messages: [{ role: "system", content: v.content }] },
            template_type: "CHAT",
            template_format: "MUSTACHE",
            invocation_parameters: { type: "openai", openai: {} },
          },
        });
      }
      const { data } = await call<{ data: { id: string; name: string }[] }>(
        "GET",
        "/v1/prompts?limit=1000",
        200,
      );
      const found = data.find((p) => p.name === name);
      if (!found) throw new Error(`Phoenix: no prompt named ${name}`);
      return found.id;
    },
    sendOtlp(body) {
      const px = phoenix();
      return exportSpans(`${px.baseUrl}/v1/traces`, px.headers, body);
    },
    async projectIdNamed(name) {
      const px = phoenix();
      const res = await fetch(`${px.baseUrl}/v1/projects/${q(name)}`, { headers: px.headers });
      if (res.status === 404) {
        await res.arrayBuffer();
        return undefined;
      }
      return (await json<{ data: { id: string } }>(res, `Phoenix GET /v1/projects/${name}`, 200))
        .data.id;
    },
    async spansVisible(projectId, spanIds) {
      const query = spanIds.map((id) => `span_id=${q(id)}`).join("&");
      const page = await call<SpansPage>(
        "GET",
        `/v1/projects/${q(projectId)}/spans?limit=${Math.min(spanIds.length, 1000)}&${query}`,
        200,
      );
      return page.data.map((s) => s.context.span_id);
    },
    async countSpans(projectId) {
      let count = 0;
      let cursor: string | null = null;
      for (;;) {
        const page: SpansPage = await call<SpansPage>(
          "GET",
          `/v1/projects/${q(projectId)}/spans?limit=1000${cursor ? `&cursor=${q(cursor)}` : ""}`,
          200,
        );
        count += page.data.length;
        if (!page.next_cursor) return count;
        cursor = page.next_cursor;
      }
    },
    async projectName(id) {
      return (await call<{ data: { name: string } }>("GET", `/v1/projects/${q(id)}`, 200)).data
        .name;
    },
    async datasetNames(limit) {
      const all: string[] = [];
      let page: string[] = [];
      let cursor: string | null = null;
      for (;;) {
        const res: { data: { name: string }[]; next_cursor: string | null } = await call(
          "GET",
          `/v1/datasets?limit=${limit}${cursor ? `&cursor=${q(cursor)}` : ""}`,
          200,
        );
        if (all.length === 0) page = res.data.map((d) => d.name);
        all.push(...res.data.map((d) => d.name));
        if (!res.next_cursor) return { all, page };
        cursor = res.next_cursor;
      }
    },
    async examples(datasetId) {
      const { data } = await call<{
        data: {
          examples: {
            input: { question: string };
            output: { answer: string };
            metadata: { n: number };
          }[];
        };
      }>("GET", `/v1/datasets/${q(datasetId)}/examples`, 200);
      return data.examples.map((e) => ({
        question: e.input.question,
        answer: e.output.answer,
        n: e.metadata.n,
      }));
    },
    async latestPrompt(promptId) {
      const { data } = await call<{
        data: { model_name: string; template: { messages: { content: string }[] } };
      }>("GET", `/v1/prompts/${q(promptId)}/latest`, 200);
      return { model: data.model_name, content: data.template.messages[0]!.content };
    },
    async spanPage(projectId, limit) {
      const page = await call<SpansPage>(
        "GET",
        `/v1/projects/${q(projectId)}/spans?limit=${limit}&sort=start_time&order=desc`,
        200,
      );
      return page.data.map((s) => s.context.span_id);
    },
    reads(ids, limit) {
      const px = phoenix();
      const at = (path: string) => ({
        name: "Phoenix",
        url: px.baseUrl + path,
        headers: px.headers,
      });
      return {
        project: at(`/v1/projects/${q(ids.projectId)}`),
        datasets: at(`/v1/datasets?limit=${limit}`),
        // Phoenix answers a version's examples whole, without pages: the dataset holds one page.
        examples: at(`/v1/datasets/${q(ids.examplesDatasetId)}/examples`),
        prompt: at(`/v1/prompts/${q(ids.promptId)}/latest`),
        // Argus lists newest start first; Phoenix's default is newest inserted first.
        spans: at(
          `/v1/projects/${q(ids.spansProjectId)}/spans?limit=${limit}&sort=start_time&order=desc`,
        ),
      };
    },
  };
}
