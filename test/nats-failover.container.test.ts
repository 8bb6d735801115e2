import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { NATS_MANAGER, inboxPrefixOf } from "@argus/platform";
import { killContainer, startContainer, type ContainerStack, type NatsNode } from "@argus/testkit";
import { describeContainers, eventually } from "./container-support.ts";
import { apiClient, type Json } from "./support.ts";

// One NATS node of three killed (SIGKILL, its JetStream store on a tmpfs: it comes back empty)
// while clients write through the API: every write the API acknowledged is readable, and its
// event reaches the audit log's consumer exactly once. The stream and its consumers keep a
// replica on each node, so losing one leaves a quorum.

const WRITERS = 3;
const WRITE_FOR_MS = 24_000;
const KILL_AT_MS = 6_000;
const RESTART_AT_MS = 14_000;

describeContainers("a NATS node killed mid-write", (ref) => {
  let stack: ContainerStack;
  let api: ReturnType<typeof apiClient>;
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    stack = ref.stack;
    api = apiClient(stack.baseUrl, stack.apiKey);
    const manager = stack.natsUsers[NATS_MANAGER]!;
    nc = await connect({
      servers: stack.natsNodes.map((n) => n.url),
      ...manager,
      inboxPrefix: inboxPrefixOf(NATS_MANAGER),
      maxReconnectAttempts: -1,
    });
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nc?.close();
  });

  it("the events stream and every consumer have a replica on each of the 3 nodes", async () => {
    const info = await jsm.streams.info(stack.stream);
    expect(info.config.num_replicas).toBe(3);
    expect(1 + (info.cluster?.replicas?.length ?? 0)).toBe(3);
    const consumers = await jsm.consumers.list(stack.stream).next();
    expect(consumers.length).toBeGreaterThan(0);
    for (const c of consumers) expect(1 + (c.cluster?.replicas?.length ?? 0), c.name).toBe(3);
  });

  it("loses no acknowledged write and duplicates no effect", async () => {
    const spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
    const since = new Date(Date.now() - 1_000).toISOString();
    // The node that leads the stream: losing it is the hardest case (a new leader is elected).
    const leader = (await jsm.streams.info(stack.stream)).cluster?.leader;
    const victim: NatsNode = stack.natsNodes.find((n) => n.name === leader) ?? stack.natsNodes[0]!;

    const acknowledged: string[] = [];
    const refused: string[] = [];
    const started = Date.now();
    const writer = async (w: number) => {
      for (let i = 0; Date.now() - started < WRITE_FOR_MS; i++) {
        const res = await api
          .req("POST", "/v2/projects", { body: { name: `failover-${w}-${i}`, space_id: spaceId } })
          .catch((err: unknown): { status: number; body: Json } => ({
            status: 0,
            body: { detail: String(err) },
          }));
        if (res.status === 201) acknowledged.push(res.body.id as string);
        else refused.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    };
    const faults = (async () => {
      await sleep(KILL_AT_MS);
      await killContainer(victim.containerId);
      await sleep(RESTART_AT_MS - KILL_AT_MS);
      await startContainer(victim.containerId);
    })();
    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), faults]);

    // Writes go to Postgres (outbox) whatever NATS does: none is refused.
    expect(refused).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(50);
    for (const id of acknowledged.filter((_, i) => i % 10 === 0))
      expect((await api.req("GET", `/v2/projects/${id}`)).status, id).toBe(200);

    // Every acknowledged write's event reached the audit log's consumer, once.
    const writesEnded = Date.now();
    const entries = await eventually(
      "every acknowledged project in the audit log",
      async () => {
        const logged = await auditedProjects(since);
        return acknowledged.every((id) => logged.has(id)) ? logged : undefined;
      },
      90_000,
    );
    const duplicated = [...entries].filter(([, n]) => n > 1);
    expect(duplicated).toEqual([]);
    const audited = Date.now() - writesEnded;

    // The restarted node caught up: every replica current again (lag is left out when 0).
    let last = "";
    await eventually(
      "the stream's replicas current on all 3 nodes",
      async () => {
        const { cluster } = await jsm.streams.info(stack.stream);
        last = JSON.stringify(cluster);
        const replicas = cluster?.replicas ?? [];
        return replicas.length === 2 && replicas.every((r) => r.current && !r.offline && !r.lag);
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; last seen: ${last}`);
    });
    const caughtUp = Date.now() - writesEnded;
    console.info(
      `[failover] ${acknowledged.length} writes acknowledged, none refused; ${victim.name} ` +
        `(the stream leader) killed at ${KILL_AT_MS / 1000} s, back at ${RESTART_AT_MS / 1000} s; ` +
        `all audited ${audited} ms after the last write, once each; replicas current again ` +
        `${caughtUp} ms after it`,
    );
  }, 240_000);

  /** ProjectCreated entries of the audit log since `since`, counted by project. */
  async function auditedProjects(since: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    let cursor = "";
    do {
      const query = new URLSearchParams({
        operation_name: "ProjectCreated",
        start_time: since,
        limit: "100",
        ...(cursor ? { cursor } : {}),
      });
      const page = await api.ok("GET", `/v2/audit-logs?${query}`);
      for (const entry of page.logs as Json[])
        counts.set(entry.resource_id, (counts.get(entry.resource_id) ?? 0) + 1);
      cursor = page.pagination?.has_more ? page.pagination.next_cursor : "";
    } while (cursor);
    return counts;
  }
});
