// The client side of deploy/test/cluster.sh's checks, run from the host against the test
// cluster (Service and pod addresses are reachable from the node):
//   node deploy/test/checks.ts stream|api|scaled|chaos|poll
// Prints one "ok   …" or "FAIL …" line per check (cluster.sh counts them) and exits 0 once it
// ran to the end; a crash exits 1. Configuration comes from cluster.sh in the environment:
// GATEWAY_URL, GATEWAY_OTLP_GRPC, GATEWAY_FLIGHT, ARGUS_API_KEY, PG_URL (the superuser),
// NATS_MANAGER_URL and NATS_MANAGER_PASSWORD, IDENTITY_PODS, KUBECTL, KUBECONFIG, NS_ARGUS,
// NS_NATS, POLL_STOP_FILE.
import { Buffer } from "node:buffer";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";
import { promisify } from "node:util";
import * as grpcJs from "@grpc/grpc-js";
import { Message } from "apache-arrow";
import { SpanKind, context, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as GrpcExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import pg from "pg";
import { NATS_MANAGER, SERVICE_REGISTRY, inboxPrefixOf } from "@argus/platform";
import { FlightServiceService, Ticket } from "@argus/proto/flight";
import { decodeFlightData } from "../../services/gateway/src/flight/flightData.ts";
import { projectIdOf, recentWindow, sendSpans } from "../../test/spans-support.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = promisify(execFile);

let failures = 0;
function check(ok: boolean, what: string, detail?: unknown): boolean {
  if (!ok) failures++;
  const why = !ok && detail !== undefined ? ` (${JSON.stringify(detail)})` : "";
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${why}`);
  return ok;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await sleep(250);
  }
  throw new Error(`timed out after ${timeoutMs} ms: ${what}${last ? ` (${String(last)})` : ""}`);
}

// ---- The public API ---------------------------------------------------------------------------
interface Answer {
  status: number;
  body: Record<string, unknown>;
}
async function api(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${env("GATEWAY_URL")}${path}`, {
    method,
    headers: {
      ...headers,
      authorization: `Bearer ${env("ARGUS_API_KEY")}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function organizationId(): Promise<string> {
  const orgs = await api("GET", "/v2/organizations");
  const list = orgs.body.organizations as { id: string }[] | undefined;
  if (orgs.status !== 200 || !list?.[0]) throw new Error(`GET /v2/organizations: ${orgs.status}`);
  return list[0].id;
}

async function createSpace(org: string, name: string): Promise<Answer> {
  return api("POST", "/v2/spaces", { name, organization_id: org });
}

// ---- NATS, as the manager (the JetStream API; no client library beyond the core) ------------
async function manager(): Promise<NatsConnection> {
  return connect({
    servers: env("NATS_MANAGER_URL"),
    user: NATS_MANAGER,
    pass: env("NATS_MANAGER_PASSWORD"),
    inboxPrefix: inboxPrefixOf(NATS_MANAGER),
    maxReconnectAttempts: -1,
  });
}
interface JsApi {
  config: { num_replicas: number };
  cluster?: { leader?: string; replicas?: { name: string; current: boolean; lag?: number }[] };
  state?: { messages: number; last_seq: number };
  num_pending?: number;
  num_ack_pending?: number;
  num_redelivered?: number;
  error?: { description: string };
}
async function jsApi(nc: NatsConnection, subject: string, body = ""): Promise<JsApi> {
  const msg = await nc.request(`$JS.API.${subject}`, body, { timeout: 5000 });
  const answer = msg.json<JsApi>();
  if (answer.error) throw new Error(`$JS.API.${subject}: ${answer.error.description}`);
  return answer;
}
const STREAM = process.env.ARGUS_EVENTS_STREAM ?? "ARGUS_EVENTS";
const durables = SERVICE_REGISTRY.flatMap((d) => (d.consumes ?? []).map((c) => c.durable));

/** The stream and every consumer with 3 replicas, each replica current. */
async function replicated(nc: NatsConnection): Promise<string[]> {
  const problems: string[] = [];
  const describe = (name: string, info: JsApi) => {
    const peers = info.cluster?.replicas ?? [];
    if (info.config.num_replicas !== 3)
      problems.push(`${name}: ${info.config.num_replicas} replicas`);
    else if (!info.cluster?.leader || peers.length !== 2 || peers.some((p) => !p.current))
      problems.push(`${name}: leader ${info.cluster?.leader}, peers ${JSON.stringify(peers)}`);
  };
  describe(STREAM, await jsApi(nc, `STREAM.INFO.${STREAM}`));
  for (const d of durables) describe(d, await jsApi(nc, `CONSUMER.INFO.${STREAM}.${d}`));
  return problems;
}

// ---- Postgres, as the superuser -------------------------------------------------------------
const schemas = SERVICE_REGISTRY.map((d) => d.schema);
async function withDb<T>(fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: env("PG_URL") });
  await db.connect();
  try {
    return await fn(db);
  } finally {
    await db.end();
  }
}
async function totalEvents(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    schemas.map((s) => `SELECT count(*) AS n FROM "${s}".events`).join(" UNION ALL "),
  );
  return rows.reduce((sum, r) => sum + Number(r.n), 0);
}

// ---- stream: after install, the stream and consumers are replicated on the three servers ------
async function stream(): Promise<void> {
  const nc = await manager();
  try {
    const problems = await until(
      "the stream and consumers replicated",
      async () => {
        const p = await replicated(nc);
        return p.length === 0 ? p : false;
      },
      30_000,
    ).catch(async () => replicated(nc));
    check(
      problems.length === 0,
      `stream ${STREAM} and its ${durables.length} consumers each have 3 replicas, all current`,
      problems,
    );
  } finally {
    await nc.close();
  }
}

// ---- api: the public API and OTLP through the gateway Service ---------------------------------
async function apiAndOtlp(): Promise<void> {
  const ready = await fetch(`${env("GATEWAY_URL")}/readyz`);
  check(ready.status === 200, `GET /readyz through the gateway Service -> ${ready.status}`);
  const org = await organizationId();
  const created = await createSpace(org, `cluster-test-${Date.now()}`);
  check(created.status === 201, `POST /v2/spaces -> ${created.status}`, created.body);
  const spaceId = String(created.body.id);
  const read = await api("GET", `/v2/spaces/${spaceId}`);
  check(read.status === 200 && read.body.id === spaceId, `GET /v2/spaces/{id} -> ${read.status}`);

  // OTLP/HTTP (protobuf) on the gateway's HTTP port.
  const target = { baseUrl: env("GATEWAY_URL"), apiKey: env("ARGUS_API_KEY") };
  const sent = await sendSpans(target, { spaceId, projectName: "cluster-otlp-http", traces: 2 });
  const listed = async (projectId: string, want: number) =>
    until(
      `${want} spans listed`,
      async () => {
        const res = await api("POST", "/v2/spans", { project_id: projectId, ...recentWindow() });
        const spans = (res.body.spans as unknown[] | undefined) ?? [];
        return res.status === 200 && spans.length >= want ? spans.length : false;
      },
      30_000,
    ).catch(() => 0);
  const viaHttp = await listed(sent.projectId, sent.spanIds.length);
  check(
    viaHttp === sent.spanIds.length,
    `OTLP/HTTP POST /v1/traces: ${sent.spanIds.length} spans sent, ${viaHttp} listed by POST /v2/spans`,
  );

  // OTLP/gRPC on the gateway Service's otlp-grpc port, with the official exporter.
  // The exporter's own grpc-js: its Metadata is the one the exporter sends.
  const grpc = createRequire(import.meta.resolve("@opentelemetry/exporter-trace-otlp-grpc"))(
    "@grpc/grpc-js",
  ) as typeof grpcJs;
  const metadata = new grpc.Metadata();
  metadata.set("authorization", env("ARGUS_API_KEY"));
  metadata.set("arize-space-id", spaceId);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": "argus-cluster-test",
      "openinference.project.name": "cluster-otlp-grpc",
    }),
    spanProcessors: [
      new SimpleSpanProcessor({
        exporter: new GrpcExporter({
          url: `http://${env("GATEWAY_OTLP_GRPC")}`,
          metadata: metadata,
        }),
      }),
    ],
  });
  const tracer = provider.getTracer("argus-cluster-test");
  const root = tracer.startSpan("agent", {
    kind: SpanKind.SERVER,
    attributes: { "openinference.span.kind": "AGENT" },
  });
  tracer
    .startSpan(
      "llm",
      { attributes: { "openinference.span.kind": "LLM" } },
      trace.setSpan(context.active(), root),
    )
    .end();
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  const grpcProject = await until(
    "the gRPC project",
    () => projectIdOf(target, spaceId, "cluster-otlp-grpc"),
    20_000,
  ).catch(() => undefined);
  const viaGrpc = grpcProject ? await listed(grpcProject, 2) : 0;
  check(viaGrpc === 2, `OTLP/gRPC TraceService/Export: 2 spans sent, ${viaGrpc} listed`);

  // Arrow Flight DoGet (the official clients' bulk download) on the Service's flight port and,
  // as ARIZE_SINGLE_HOST/PORT clients use it, on the http port.
  const dataset = await api("POST", "/v2/datasets", {
    name: "cluster-flight",
    space_id: spaceId,
    examples: [{ q: "a" }, { q: "b" }, { q: "c" }],
  });
  check(dataset.status === 201, `POST /v2/datasets -> ${dataset.status}`, dataset.body);
  const ticket = { getDataset: { spaceId, datasetId: String(dataset.body.id) } };
  const http = new URL(env("GATEWAY_URL")).host;
  for (const [port, address] of [
    ["flight", env("GATEWAY_FLIGHT")],
    ["http", http],
  ] as const) {
    const rows = await flightRows(address, ticket).catch((err: unknown) => String(err));
    check(
      rows === 3,
      `Flight DoGet getDataset on the gateway Service's ${port} port: ${rows} of 3 rows`,
    );
  }
}

/** The rows of a DoGet's record batches, read to its end as pyarrow's client would. */
function flightRows(address: string, ticket: unknown): Promise<number> {
  const client = new grpcJs.Client(address, grpcJs.credentials.createInsecure());
  const md = new grpcJs.Metadata();
  md.set("auth-token-bin", Buffer.from(env("ARGUS_API_KEY")));
  return new Promise<number>((resolve, reject) => {
    const call = client.makeServerStreamRequest(
      FlightServiceService.doGet.path,
      (t: Ticket) => Buffer.from(Ticket.encode(t).finish()),
      (b: Buffer) => b,
      { ticket: Buffer.from(JSON.stringify(ticket)) },
      md,
      { deadline: Date.now() + 20_000 },
    );
    let rows = 0;
    call.on("data", (b: Buffer) => {
      const m = Message.decode(decodeFlightData(b).header);
      if (m.isRecordBatch()) rows += m.header().length;
    });
    call.on("error", reject);
    call.on("end", () => resolve(rows));
  }).finally(() => client.close());
}

// ---- who wrote and who consumed identity's events, from Postgres' side ----------------------
// A trigger records, with the client address of the connection (the pod) and the time, each
// event identity appends ('wrote': the pod that served the command) and each entry its audit
// consumer inserts ('consumed': the pod whose consumer handled it; a redelivery inserts none,
// its insert keyed by the event id).
async function watchIdentityEvents(db: pg.Client): Promise<void> {
  await db.query(`
    DROP SCHEMA IF EXISTS argus_cluster_test CASCADE;
    CREATE SCHEMA argus_cluster_test;
    CREATE TABLE argus_cluster_test.seen
      (pod inet, what text, event_id uuid, at timestamptz NOT NULL DEFAULT clock_timestamp());
    CREATE FUNCTION argus_cluster_test.record() RETURNS trigger LANGUAGE plpgsql
      SECURITY DEFINER SET search_path = pg_catalog AS $$
      BEGIN
        INSERT INTO argus_cluster_test.seen (pod, what, event_id)
          VALUES (inet_client_addr(), TG_ARGV[0], NEW.event_id);
        RETURN NEW;
      END $$;
    CREATE TRIGGER argus_cluster_test AFTER INSERT ON identity.events
      FOR EACH ROW EXECUTE FUNCTION argus_cluster_test.record('wrote');
    CREATE TRIGGER argus_cluster_test AFTER INSERT ON identity.audit_log
      FOR EACH ROW EXECUTE FUNCTION argus_cluster_test.record('consumed');`);
}
const unwatchIdentityEvents = (db: pg.Client) =>
  db.query("DROP SCHEMA IF EXISTS argus_cluster_test CASCADE");

// ---- scaled: identity at two replicas ----------------------------------------------------------
// Which pod did what (watchIdentityEvents); the relay's lock shows who publishes.
async function scaled(): Promise<void> {
  const pods = env("IDENTITY_PODS").split(/\s+/).filter(Boolean);
  check(pods.length === 2, `identity runs 2 pods (${pods.join(", ")})`);
  await withDb(async (db) => {
    await watchIdentityEvents(db);
    try {
      const org = await organizationId();
      const run = Date.now();
      let failed = 0;
      // 80 writes, 8 at a time: the gateway balances its calls over both pods (headless).
      await Promise.all(
        Array.from({ length: 8 }, async (_, worker) => {
          for (let i = worker; i < 80; i += 8) {
            const res = await createSpace(org, `scaled-${run}-${i}`);
            if (res.status !== 201) failed++;
          }
        }),
      );
      check(failed === 0, `scaled: 80 spaces created through the gateway, ${failed} failed`);
      const written = await until(
        "every written event consumed",
        async () => {
          const { rows } = await db.query<{ wrote: string; consumed: string }>(`
            SELECT count(*) FILTER (WHERE what = 'wrote') AS wrote,
                   count(*) FILTER (WHERE what = 'consumed' AND event_id IN
                     (SELECT event_id FROM argus_cluster_test.seen WHERE what = 'wrote')) AS consumed
            FROM argus_cluster_test.seen`);
          const { wrote, consumed } = rows[0]!;
          return Number(wrote) >= 80 && wrote === consumed ? Number(wrote) : false;
        },
        60_000,
      ).catch(() => 0);
      check(written >= 80, `scaled: every event the writes appended (${written}) was consumed`);
      const { rows } = await db.query<{ what: string; pod: string; n: string }>(
        `SELECT what, host(pod) AS pod, count(*) AS n FROM argus_cluster_test.seen GROUP BY 1, 2 ORDER BY 1, 2`,
      );
      const by = (what: string) => rows.filter((r) => r.what === what);
      const show = (what: string) =>
        by(what)
          .map((r) => `${r.pod}: ${r.n}`)
          .join(", ");
      check(
        pods.every((p) => by("wrote").some((r) => r.pod === p)),
        `scaled: both pods served the gateway's calls (events appended by ${show("wrote")})`,
      );
      check(
        pods.every((p) => by("consumed").some((r) => r.pod === p)),
        `scaled: both pods consumed from the shared durable identity-audit-log (${show("consumed")})`,
      );
      const { rows: holders } = await db.query<{ pod: string }>(
        `SELECT host(a.client_addr) AS pod
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid,
              (SELECT hashtextextended('argus.relay:identity:default', 0) AS k) key
         WHERE l.locktype = 'advisory' AND l.granted
           AND l.classid::bigint = (key.k >> 32) & 4294967295 AND l.objid::bigint = key.k & 4294967295`,
      );
      check(
        holders.length === 1 && pods.includes(holders[0]!.pod),
        `scaled: one relay is active (identity's relay lock held by ${holders.map((h) => h.pod).join(", ") || "nobody"})`,
      );
    } finally {
      await unwatchIdentityEvents(db);
    }
  });
}

// ---- chaos: a NATS pod deleted during 60 s of writes ------------------------------------------
async function chaos(): Promise<void> {
  const durationMs = 60_000;
  const deleteAtMs = 15_000;
  const nc = await manager();
  const before = await jsApi(nc, `STREAM.INFO.${STREAM}`);
  const firstSeq = (before.state?.last_seq ?? 0) + 1;
  // The victim: the server leading identity-audit-log (the consumer measured below) while no
  // identity pod is connected to it. Losing it, the pods keep their connections and learn of
  // the lost consumer leader only from the server side; stepping the consumer's leadership
  // down moves it until such a server leads it. The stream leader goes with it when it is there.
  const consumer = "identity-audit-log";
  const identityPods = env("IDENTITY_PODS").split(/\s+/).filter(Boolean);
  const clientsOf = async (server: string): Promise<string[]> => {
    const ip = (
      await run_("get", "pod", "-n", env("NS_NATS"), server, "-o", "jsonpath={.status.podIP}")
    ).trim();
    const res = await fetch(`http://${ip}:8222/connz?limit=4096`);
    return (
      ((await res.json()) as { connections?: { ip: string }[] }).connections?.map((c) => c.ip) ?? []
    );
  };
  let leader = "";
  for (let attempt = 0; attempt < 8; attempt++) {
    leader = (await jsApi(nc, `CONSUMER.INFO.${STREAM}.${consumer}`)).cluster?.leader ?? "";
    const clients = leader ? await clientsOf(leader) : identityPods;
    if (!identityPods.some((p) => clients.includes(p))) break;
    await nc.request(`$JS.API.CONSUMER.LEADER.STEPDOWN.${STREAM}.${consumer}`, "", {
      timeout: 5000,
    });
    await until(
      "a new consumer leader",
      async () =>
        (await jsApi(nc, `CONSUMER.INFO.${STREAM}.${consumer}`)).cluster?.leader !== leader,
      10_000,
    ).catch(() => undefined);
  }
  if (!leader) throw new Error(`${consumer} has no leader`);
  // The window starts once the consumer delivers again after any step-down: a write, consumed.
  const org = await organizationId();
  const settleStart = Date.now();
  await createSpace(org, `chaos-settle-${Date.now()}`);
  await until(
    `${consumer} delivering`,
    async () => {
      const c = await jsApi(nc, `CONSUMER.INFO.${STREAM}.${consumer}`);
      return c.num_pending === 0 && c.num_ack_pending === 0;
    },
    60_000,
  );
  console.log(
    `chaos: ${consumer} led by ${leader}, delivering again after ${((Date.now() - settleStart) / 1000).toFixed(1)} s`,
  );
  const leads: string[] = [];
  if ((await jsApi(nc, `STREAM.INFO.${STREAM}`)).cluster?.leader === leader)
    leads.push("the stream");
  for (const d of durables)
    if ((await jsApi(nc, `CONSUMER.INFO.${STREAM}.${d}`)).cluster?.leader === leader) leads.push(d);
  const run = Date.now();
  const baseline = await withDb(async (db) => {
    await watchIdentityEvents(db);
    const { rows } = await db.query<{ at: Date }>("SELECT clock_timestamp() AS at");
    return rows[0]!.at;
  });
  const acknowledged: { name: string }[] = [];
  const refused: string[] = [];
  let deletedAt = 0;
  const start = Date.now();
  const killer = (async () => {
    await sleep(deleteAtMs);
    deletedAt = Date.now();
    await run_("delete", "pod", "-n", env("NS_NATS"), leader, "--wait=false");
  })();
  // Two writers, each one write at a time, for the whole minute.
  await Promise.all(
    [0, 1].map(async (w) => {
      for (let i = 0; Date.now() - start < durationMs; i++) {
        const name = `chaos-${run}-${w}-${i}`;
        try {
          const res = await createSpace(org, name);
          if (res.status === 201) acknowledged.push({ name });
          else refused.push(`${res.status}`);
        } catch (err) {
          refused.push((err as Error).message);
        }
        await sleep(50);
      }
    }),
  );
  await killer;
  check(
    refused.length === 0,
    `chaos: ${acknowledged.length} writes in 60 s through the gateway, NATS pod ${leader} (leader of ${leads.join(", ")}; no identity pod connected to it) deleted at 15 s; ${refused.length} refused`,
    [...new Set(refused)].slice(0, 5),
  );

  // Everything drains: every event in the stream once, every consumer caught up.
  const drained = await until(
    "the stream and every consumer caught up",
    async () =>
      withDb(async (db) => {
        const events = await totalEvents(db);
        const info = await jsApi(nc, `STREAM.INFO.${STREAM}`);
        if (info.state?.messages !== events) return false;
        for (const d of durables) {
          const c = await jsApi(nc, `CONSUMER.INFO.${STREAM}.${d}`);
          if (c.num_pending !== 0 || c.num_ack_pending !== 0) return false;
        }
        return { events, messages: info.state.messages };
      }),
    90_000,
  ).catch(() => undefined);
  const counts = await withDb(async (db) => ({
    events: await totalEvents(db),
    messages: (await jsApi(nc, `STREAM.INFO.${STREAM}`)).state?.messages,
  }));
  check(
    drained !== undefined,
    `chaos: every event of every service is in the stream exactly once (${counts.events} events, ${counts.messages} messages) and every consumer acknowledged all of it`,
  );
  const redelivered: Record<string, number> = {};
  for (const d of durables) {
    const n = (await jsApi(nc, `CONSUMER.INFO.${STREAM}.${d}`)).num_redelivered ?? 0;
    if (n) redelivered[d] = n;
  }

  await withDb(async (db) => {
    // Each acknowledged write is there, once (no write lost, none applied twice).
    const { rows } = await db.query<{ name: string; n: string }>(
      `SELECT name, count(*) AS n FROM identity.spaces WHERE name LIKE $1 GROUP BY name`,
      [`chaos-${run}-%`],
    );
    const found = new Map(rows.map((r) => [r.name, Number(r.n)]));
    const missing = acknowledged.filter((a) => !found.has(a.name)).length;
    const twice = [...found.values()].filter((n) => n > 1).length;
    check(
      missing === 0 && twice === 0,
      `chaos: all ${acknowledged.length} acknowledged writes stored, none lost, none applied twice`,
      { missing, twice },
    );
    // The audit log holds each event of the window once: the consumers' effects, not doubled
    // by the redeliveries the failover caused.
    const { rows: audit } = await db.query<{ events: string; entries: string; doubled: string }>(
      `SELECT (SELECT count(*) FROM identity.events WHERE recorded_at >= $1) AS events,
              (SELECT count(*) FROM identity.audit_log a JOIN identity.events e ON e.event_id = a.event_id
                WHERE e.recorded_at >= $1) AS entries,
              (SELECT count(*) FROM (SELECT event_id FROM identity.audit_log GROUP BY event_id HAVING count(*) > 1) d) AS doubled`,
      [baseline],
    );
    const processed = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM argus_cluster_test.seen s JOIN identity.events e ON e.event_id = s.event_id
       WHERE s.what = 'consumed' AND e.recorded_at >= $1`,
      [baseline],
    );
    const a = audit[0]!;
    check(
      Number(a.doubled) === 0 && Number(processed.rows[0]!.n) === Number(a.events),
      `chaos: identity's ${a.events} events of the window each processed once by identity-audit-log (${a.entries} audit entries, ${a.doubled} doubled; redeliveries ${JSON.stringify(redelivered)})`,
    );
    // Where the time went: the relay's publish (commit to the stream's timestamp) and the
    // consumer (stream to processed), from each message of the window.
    const published = await publishTimes(nc, firstSeq);
    const { rows: times } = await db.query<{ event_id: string; recorded: Date; processed: Date }>(
      `SELECT e.event_id, e.recorded_at AS recorded, s.at AS processed
       FROM identity.events e JOIN argus_cluster_test.seen s
         ON s.event_id = e.event_id AND s.what = 'consumed'
       WHERE e.recorded_at >= $1`,
      [baseline],
    );
    let relayLag = 0;
    let consumerLag = 0;
    for (const t of times) {
      const at = published.get(t.event_id);
      if (at === undefined) continue;
      relayLag = Math.max(relayLag, at - t.recorded.getTime());
      consumerLag = Math.max(consumerLag, t.processed.getTime() - at);
    }
    console.log(
      `chaos: longest wait for the relay's publish ${(relayLag / 1000).toFixed(1)} s, for the consumer ${(consumerLag / 1000).toFixed(1)} s (${published.size} messages of the window)`,
    );
    // How long events waited for the stream while it failed over: commit to consumption.
    const { rows: lag } = await db.query<{ max: number; worst_at: Date }>(
      `SELECT extract(epoch FROM max(s.at - e.recorded_at))::float8 AS max,
              (array_agg(e.recorded_at ORDER BY s.at - e.recorded_at DESC))[1] AS worst_at
       FROM argus_cluster_test.seen s JOIN identity.events e ON e.event_id = s.event_id
       WHERE s.what = 'consumed' AND e.recorded_at >= $1`,
      [baseline],
    );
    const worst = lag[0]?.max ?? Infinity;
    const worstAt = lag[0]?.worst_at;
    check(
      worst <= 15,
      `chaos: events flowed again within 15 s (longest commit-to-consumption ${worst.toFixed(1)} s, for an event committed ${worstAt ? ((worstAt.getTime() - deletedAt) / 1000).toFixed(1) : "?"} s after the deletion)`,
    );
    await unwatchIdentityEvents(db);
  });

  // The replaced pod rejoins and catches up: three current replicas again.
  const t0 = Date.now();
  const again = await until(
    "three current replicas again",
    async () => ((await replicated(nc)).length === 0 ? true : false),
    120_000,
  ).catch(() => false);
  check(
    again,
    `chaos: ${leader} replaced and caught up: stream and consumers at 3 current replicas ${((Date.now() - deletedAt) / 1000).toFixed(0)} s after the deletion (${((Date.now() - t0) / 1000).toFixed(0)} s after the writes)`,
    again ? undefined : await replicated(nc),
  );
  await nc.close();
}

/** Each message's stream timestamp (ms) by its Nats-Msg-Id (the event id), from `first` on. */
async function publishTimes(nc: NatsConnection, first: number): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  const last = (await jsApi(nc, `STREAM.INFO.${STREAM}`)).state?.last_seq ?? 0;
  for (let seq = first; seq <= last; seq++) {
    const msg = await nc.request(`$JS.API.STREAM.MSG.GET.${STREAM}`, JSON.stringify({ seq }), {
      timeout: 5000,
    });
    const got = msg.json<{ message?: { hdrs?: string; time: string } }>().message;
    if (!got) continue;
    const id = /Nats-Msg-Id:\s*(\S+)/i.exec(Buffer.from(got.hdrs ?? "", "base64").toString())?.[1];
    if (id) times.set(id, Date.parse(got.time));
  }
  return times;
}

async function run_(...args: string[]): Promise<string> {
  const { stdout } = await run(env("KUBECTL"), args, { env: process.env });
  return stdout;
}

// ---- poll: a client polling through the gateway until POLL_STOP_FILE exists ------------------
interface Polled {
  at: string;
  ms: number;
  requestId: string;
  outcome: string;
}

async function poll(): Promise<void> {
  let stop = false;
  const stopFile = env("POLL_STOP_FILE");
  const watcher = setInterval(() => (stop ||= existsSync(stopFile)), 100);
  const failed: Polled[] = [];
  const slowest: Polled[] = [];
  let requests = 0;
  const start = Date.now();
  // Two pollers, each a request at a time, reusing connections as clients do. Each request
  // carries its own id, which the gateway and the services log it under.
  await Promise.all(
    [0, 1].map(async (poller) => {
      while (!stop) {
        const requestId = `poll-${start}-${poller}-${requests++}`;
        const at = new Date().toISOString();
        const t = performance.now();
        let outcome: string;
        try {
          const res = await api("GET", "/v2/spaces?limit=1", undefined, {
            "x-request-id": requestId,
          });
          outcome =
            res.status === 200 ? "" : `${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
        } catch (err) {
          const cause = (err as { cause?: { code?: string } }).cause?.code;
          outcome = `${(err as Error).message}${cause ? ` (${cause})` : ""}`;
        }
        const polled = { at, ms: Math.round(performance.now() - t), requestId, outcome };
        if (outcome) failed.push(polled);
        slowest.push(polled);
        slowest.sort((a, b) => b.ms - a.ms).splice(3);
        // ~20 requests a second in all: under the gateway's rate limit per API key (50/s).
        await sleep(100);
      }
    }),
  );
  clearInterval(watcher);
  const seconds = ((Date.now() - start) / 1000).toFixed(0);
  const show = (p: Polled) =>
    `${p.at} ${p.ms} ms ${p.requestId}${p.outcome ? ` ${p.outcome}` : ""}`;
  console.log(`the slowest requests during the upgrade: ${slowest.map(show).join("; ")}`);
  for (const p of failed.slice(0, 10)) console.log(`request-id ${p.requestId} failed`);
  check(
    failed.length === 0 && requests > 100,
    `${requests} requests through the gateway Service in ${seconds} s during the upgrade, ${failed.length} failed`,
    failed.slice(0, 10).map(show),
  );
}

const commands: Record<string, () => Promise<void>> = {
  stream,
  api: apiAndOtlp,
  scaled,
  chaos,
  poll,
};
const command = commands[process.argv[2] ?? ""];
if (!command) {
  console.error(`usage: checks.ts ${Object.keys(commands).join("|")}`);
  process.exit(2);
}
try {
  await command();
} catch (err) {
  console.log(`FAIL ${process.argv[2]}: ${(err as Error).stack ?? String(err)}`);
  process.exit(1);
}
console.error(`checks.ts ${process.argv[2]}: ${failures} failed`);
process.exit(0);
