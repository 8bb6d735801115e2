import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICE_REGISTRY, decodeId, inboxPrefixOf } from "@argus/platform";
import { startApi, type Api } from "./support.ts";

// Issue 16: the bus is not trusted. Each service holds its own NATS identity, which may publish
// only its own events; a connection without credentials is refused. A forged event must change
// nothing: no cascade, no audit entry.

let api: Api;
let db: pg.Pool;
let spaceId: string;
let projectId: string;
beforeAll(async () => {
  api = await startApi();
  db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL, max: 2 });
  spaceId = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;
  const project = await api.req("POST", "/v2/projects", {
    body: { name: "kept", space_id: spaceId },
  });
  expect(project.status).toBe(201);
  projectId = project.body.id;
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

const root = () => api.stack.env.ARGUS_SUBJECT_ROOT!;

async function connectAs(service: string): Promise<NatsConnection> {
  const user = api.stack.nats.users![service]!;
  return connect({
    servers: api.stack.nats.url,
    user: user.user,
    pass: user.pass,
    inboxPrefix: inboxPrefixOf(user.user),
  });
}

/** Publishes and returns the permission error the server answers with, if any. */
async function publishAs(nc: NatsConnection, subject: string, data: unknown): Promise<string> {
  const errors = (async () => {
    for await (const s of nc.status()) if (s.type === "error") return String(s.error);
    return "closed";
  })();
  nc.publish(subject, JSON.stringify(data), { headers: undefined });
  await nc.flush();
  return Promise.race([errors, new Promise<string>((r) => setTimeout(() => r("accepted"), 1_500))]);
}

const forgedSpaceDeleted = () => ({
  id: decodeId("Space", spaceId),
  account_id: "forged",
  organization_id: "forged",
  deleted_at: new Date().toISOString(),
});

describe("NATS identities derived from the service registry", () => {
  it("refuses a connection without credentials, or with a wrong password", async () => {
    await expect(connect({ servers: api.stack.nats.url, reconnect: false })).rejects.toThrow(
      /Authorization/i,
    );
    const catalog = api.stack.nats.users!.catalog!;
    await expect(
      connect({ servers: api.stack.nats.url, user: catalog.user, pass: "wrong", reconnect: false }),
    ).rejects.toThrow(/Authorization/i);
  });

  it("refuses every service's publish to each consumer's input that is not its own", async () => {
    // The inputs of the registry's consumers, and a subject of each that its owner alone may use.
    const inputs = SERVICE_REGISTRY.flatMap((d) =>
      (d.consumes ?? []).map((c) => ({ consumer: c.durable, subjects: c.subjects })),
    );
    expect(inputs.length).toBeGreaterThan(0);
    const forged = [
      { owner: "identity", subject: `${root()}.identity.space.SpaceDeleted` },
      { owner: "catalog", subject: `${root()}.catalog.project.ProjectDeleted` },
    ];
    for (const { owner, subject } of forged)
      for (const d of SERVICE_REGISTRY.filter((s) => s.name !== owner)) {
        const nc = await connectAs(d.name);
        try {
          expect(
            await publishAs(nc, subject, forgedSpaceDeleted()),
            `${d.name} → ${subject}`,
          ).toMatch(/Permissions Violation for Publish/i);
        } finally {
          await nc.close().catch(() => {});
        }
      }
  });

  it("a service may not create streams or consumers, nor read another's durable", async () => {
    const nc = await connectAs("catalog");
    try {
      const stream = api.stack.env.ARGUS_EVENTS_STREAM!;
      expect(await publishAs(nc, `$JS.API.STREAM.CREATE.forged`, {})).toMatch(/Permissions/i);
      expect(
        await publishAs(nc, `$JS.API.CONSUMER.MSG.NEXT.${stream}.identity-audit-log`, {}),
      ).toMatch(/Permissions/i);
    } finally {
      await nc.close().catch(() => {});
    }
  });

  it("after the forgery attempts, the project and the audit log are unchanged", async () => {
    await new Promise((r) => setTimeout(r, 2_000));
    expect((await api.req("GET", `/v2/projects/${projectId}`)).status).toBe(200);
    expect((await api.req("GET", `/v2/spaces/${spaceId}`)).status).toBe(200);
    const forgedEntries = await db.query(
      "select count(*)::int as n from identity.audit_log where operation_name ilike '%SpaceDeleted%'",
    );
    expect(forgedEntries.rows[0].n).toBe(0);
  });
});

describe("database roles derived from the service registry", () => {
  it("each service runs as its own role, owning its schema and no other", async () => {
    for (const d of SERVICE_REGISTRY) {
      const url = api.stack.processEnv[d.name]!.DATABASE_URL!;
      expect(new URL(url).username).not.toBe("postgres");
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const me = await c.query<{ su: boolean }>(
          "select rolsuper as su from pg_roles where rolname = current_user",
        );
        expect(me.rows[0]!.su).toBe(false);
        for (const other of SERVICE_REGISTRY.filter((o) => o.name !== d.name))
          await expect(c.query(`select 1 from ${other.schema}.events limit 1`)).rejects.toThrow(
            /permission denied/,
          );
        await expect(c.query("create role intruder")).rejects.toThrow(/permission denied/);
      } finally {
        await c.end();
      }
    }
  });
});
