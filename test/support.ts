import {
  createTestDatabase,
  startStack,
  testInfra,
  type Stack,
  type StackOptions,
  NO_RATE_LIMITS,
} from "@argus/testkit";

export interface Api {
  stack: Stack;
  /** fetch against the gateway with the initial admin key (or `key`), JSON in and out. */
  req(
    method: string,
    path: string,
    opts?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; body: Json }>;
  /** The same as the admin, throwing on anything but 2xx: for setting a test up. */
  ok(method: string, path: string, body?: unknown): Promise<Json>;
  stop(): Promise<void>;
}

// Test code reads arbitrary JSON bodies; a loose record keeps assertions readable.
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A fresh database and the whole stack as processes, for one test file. */
export async function startApi(opts: Partial<StackOptions> = {}): Promise<Api> {
  const infra = testInfra();
  const db = await createTestDatabase(infra);
  let stack: Stack;
  try {
    stack = await startStack({
      databaseUrl: db.url,
      ...opts,
      // Suites hammer one key and make deliberate 401s from one address; the rate limits
      // have suites of their own.
      env: { ...NO_RATE_LIMITS, ...opts.env },
    });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const api: Api = {
    stack,
    ...apiClient(stack.baseUrl, stack.apiKey, () => stack.report()),
    async stop() {
      await stack.stop();
      await db.drop();
    },
  };
  return api;
}

/**
 * JSON calls on a gateway, as the admin (or `key`), for a stack started elsewhere too; `report`
 * says what the stack logged, added to the error of a setup call answered with a 5xx.
 */
export function apiClient(
  baseUrl: string,
  apiKey: string,
  report?: () => string,
): Pick<Api, "req" | "ok"> {
  const req: Api["req"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? apiKey : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Json) : {},
    };
  };
  return {
    req,
    async ok(method, path, body) {
      const res = await req(method, path, { body });
      if (res.status >= 300) throw answerError(`${method} ${path}: `, res, report);
      return res.body;
    },
  };
}

/**
 * The error of an answer a test did not expect; a 5xx says little by itself, so it carries what
 * the stack logged (`report`), which says where it failed.
 */
export function answerError(
  prefix: string,
  res: { status: number; body: Json },
  report?: () => string,
): Error {
  const stack = res.status >= 500 && report ? `\n${report()}` : "";
  return new Error(`${prefix}${res.status} ${JSON.stringify(res.body)}${stack}`);
}

/** Checks the Problem contract of every error: content type, fields, status equal to the HTTP status. */
export function expectProblem(
  res: { status: number; headers: Headers; body: Json },
  status: number,
  fragment: string,
): void {
  const problems: string[] = [];
  if (res.status !== status)
    problems.push(`status ${res.status}, wanted ${status}: ${JSON.stringify(res.body)}`);
  if (!res.headers.get("content-type")?.startsWith("application/problem+json"))
    problems.push(`content-type ${res.headers.get("content-type")}`);
  if (res.body.status !== status) problems.push(`body.status ${res.body.status}`);
  if (typeof res.body.title !== "string" || res.body.title === "") problems.push("no title");
  if (!String(res.body.type).endsWith(`#${fragment}`))
    problems.push(`type ${res.body.type}, wanted #${fragment}`);
  if (typeof res.body.detail !== "string") problems.push("no detail");
  if (typeof res.body.instance !== "string") problems.push("no instance");
  if (typeof res.body.request_id !== "string" || res.body.request_id === "")
    problems.push("no request_id");
  if (problems.length > 0) throw new Error(`not the expected Problem:\n  ${problems.join("\n  ")}`);
}

/** The account's whole audit log, once it stops growing: the log follows JetStream. */
export async function wholeAuditLog(api: Api): Promise<Json[]> {
  let log: Json[] = [];
  for (let round = 0; round < 40; round++) {
    const entries: Json[] = [];
    let cursor = "";
    do {
      const page = await api.ok(
        "GET",
        `/v2/audit-logs?limit=100&start_time=2000-01-01T00:00:00Z${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      entries.push(...(page.logs as Json[]));
      cursor = page.pagination?.next_cursor ?? "";
    } while (cursor);
    if (round > 0 && entries.length === log.length) return entries;
    log = entries;
    await new Promise((r) => setTimeout(r, 500));
  }
  return log;
}

/** The paths of `value` whose string is exactly a uuid. */
function uuidPaths(value: unknown, path: string): string[] {
  if (typeof value === "string")
    return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
      ? [path]
      : [];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    uuidPaths(v, Array.isArray(value) ? `${path}[]` : `${path}.${k}`),
  );
}

/**
 * Where audit entries name a stored uuid rather than a public id (`<operation> <path>`), once
 * each. A request id is the request's, not a resource's.
 */
export const storedIdsIn = (log: Json[]): string[] =>
  [
    ...new Set(
      log.flatMap((e) => [
        ...uuidPaths({ ...e, request_id: null, variables: null }, e.operation_name),
        ...uuidPaths(JSON.parse(e.variables ?? "null"), `${e.operation_name} variables`),
      ]),
    ),
  ].sort();
