import { connect, type NatsConnection } from "@nats-io/transport-node";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { AccountRole } from "@argus/proto/common/v1";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { DirectoryServiceService } from "@argus/proto/identity/v1/directory";
import {
  Principal,
  SERVICE_REGISTRY,
  callUnary,
  createChannel,
  decodeId,
  fromGrpcError,
  inboxPrefixOf,
  principalInvalidationSubject,
  callKeysOf,
  callersOf,
  keyEnv,
  parsePrivateKey,
  principalSigner,
  serviceCredential,
  serviceEnv,
  type CallCredential,
  type ClientMethod,
} from "@argus/platform";
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

/** Subscribes and returns the permission error the server answers with, if any. */
async function subscribeAs(nc: NatsConnection, subject: string): Promise<string> {
  const errors = (async () => {
    for await (const s of nc.status()) if (s.type === "error") return String(s.error);
    return "closed";
  })();
  nc.subscribe(subject);
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

  it("the gateway may only receive principal-cache invalidations and answer them", async () => {
    const subject = principalInvalidationSubject(root());
    const gateway = await connectAs("gateway");
    const identity = await connectAs("identity");
    const catalog = await connectAs("catalog");
    try {
      // No event, no invalidation of its own, nothing into a service's inbox.
      for (const forged of [
        `${root()}.identity.space.SpaceDeleted`,
        subject,
        `${inboxPrefixOf("identity")}.forged`,
      ])
        expect(await publishAs(gateway, forged, forgedSpaceDeleted()), forged).toMatch(
          /Permissions Violation for Publish/i,
        );
      expect(await subscribeAs(gateway, `${root()}.>`)).toMatch(/Permissions Violation/i);
      // Only identity invalidates.
      expect(await publishAs(catalog, subject, { account_id: "", epoch: 1 })).toMatch(
        /Permissions Violation for Publish/i,
      );
      // Identity's invalidation reaches every gateway (the stack's, and this connection), and
      // each one's answer reaches identity's inbox.
      gateway.subscribe(subject, {
        callback: (_err, msg) => {
          msg.respond("ack");
        },
      });
      await gateway.flush();
      const replies = await identity.requestMany(
        subject,
        JSON.stringify({ account_id: "no-such-account", epoch: 0 }),
        { strategy: "timer", maxWait: 1_000 },
      );
      const answers: string[] = [];
      for await (const m of replies) answers.push(m.string());
      expect(answers).toContain("ack");
      expect(answers.some((a) => /^\{"gateway_id":"gw-/.test(a))).toBe(true);
    } finally {
      for (const nc of [gateway, identity, catalog]) await nc.close().catch(() => {});
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

// Issue 8: only the gateway can mint a caller. Services verify principals with the gateway's
// public key alone, forward them unchanged, and call on their own behalf only where the callee
// names them. Each process's keys come from the stack (`processEnv`), as a pod's from the chart.
describe("signed calls", () => {
  const channels: Record<string, ReturnType<typeof createChannel>> = {};
  let admin: Principal;
  const channel = (service: string) =>
    (channels[service] ??= createChannel(api.stack.env[serviceEnv(service).grpcUrl]!));
  const privateKeyOf = (process: string) =>
    parsePrivateKey(api.stack.processEnv[process]![keyEnv(process).privateKey]!);
  const asCaller = (signer: string, p: Principal): CallCredential =>
    principalSigner(privateKeyOf(signer)).sign(p);
  const asService = (name: string, key = name): CallCredential =>
    serviceCredential(name, privateKeyOf(key));
  /** "ok", or the problem type the call fails with. */
  const outcome = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => "ok",
      (err: unknown) => fromGrpcError(err).type,
    );
  const call = <Req, Res>(
    service: string,
    method: ClientMethod<Req, Res>,
    req: Req,
    credential: CallCredential,
  ) => outcome(callUnary(channel(service), method, req, { credential, requestId: "trust" }));

  beforeAll(async () => {
    const res = await callUnary(
      channel("identity"),
      IdentityServiceService.authenticate,
      { apiKey: api.stack.apiKey },
      { credential: asService("gateway"), requestId: "trust" },
    );
    admin = res.principal!;
  });
  afterAll(() => Object.values(channels).forEach((c) => c.close()));

  // One RPC per service that serves callers, asking for something the admin may read.
  const reads: Record<string, (c: CallCredential) => Promise<string>> = {
    identity: (c) =>
      call("identity", IdentityServiceService.getSpace, { id: decodeId("Space", spaceId)! }, c),
    catalog: (c) =>
      call("catalog", ProjectServiceService.getProject, { id: decodeId("Project", projectId)! }, c),
  };

  it.each(Object.keys(reads))(
    "%s serves a caller only as the gateway signed it: not minted with another key, not tampered",
    async (service) => {
      const read = reads[service]!;
      expect(await read(asCaller("gateway", admin))).toBe("ok");
      // The catalog's own key, which a compromised catalog holds, mints no caller.
      expect(await read(asCaller("catalog", admin))).toBe("authentication-required");
      // Signed by the gateway for a member, sent claiming to be the admin.
      const signed = asCaller("gateway", {
        ...admin,
        accountRole: AccountRole.ACCOUNT_ROLE_MEMBER,
      });
      const tampered: CallCredential = {
        attach(md, path) {
          signed.attach(md, path);
          // The same issue time and signature, around the admin's bytes.
          const [at, , signature] = String(md.get("argus-caller")[0]).split(".");
          const bytes = Buffer.from(Principal.encode(admin).finish()).toString("base64");
          md.set("argus-caller", `${at}.${bytes}.${signature}`);
        },
      };
      expect(await read(tampered)).toBe("authentication-required");
      // A service's own call is no caller's: refused (403) by an RPC that does not name it,
      // even from a registry caller whose key the service holds; from any other, 401.
      for (const caller of callersOf(service))
        expect(await read(asService(caller)), caller).toBe("access-forbidden");
      if (!callersOf(service).includes("catalog"))
        expect(await read(asService("catalog"))).toBe("authentication-required");
      // Nor is a service's signature passed off under the gateway's name.
      expect(await read(asService("gateway", "catalog"))).toBe("authentication-required");
    },
  );

  it("identity serves the catalog's own lookups, and them only to the catalog", async () => {
    const resolve = (c: CallCredential) =>
      call(
        "identity",
        DirectoryServiceService.resolveUsers,
        { accountId: admin.accountId, emails: [], ids: [admin.userId] },
        c,
      );
    expect(await resolve(asService("catalog"))).toBe("ok");
    expect(await resolve(asService("gateway"))).toBe("access-forbidden");
    // A caller, even an admin, does not reach it: it serves services only.
    expect(await resolve(asCaller("gateway", admin))).toBe("access-forbidden");
    // And the catalog does not reach what identity keeps for the gateway.
    expect(
      await call(
        "identity",
        IdentityServiceService.authenticate,
        { apiKey: api.stack.apiKey },
        asService("catalog"),
      ),
    ).toBe("access-forbidden");
  });

  it("each process holds only its own private key, and the public keys of its callers", () => {
    const callKeyVars = (env: Record<string, string>) =>
      Object.keys(env)
        .filter((k) => /_(PRIVATE|PUBLIC)_KEY$/.test(k))
        .sort();
    for (const [name, env] of Object.entries(api.stack.processEnv)) {
      const { signs, trusts } = callKeysOf(name);
      const wanted = [
        ...(signs ? [keyEnv(name).privateKey] : []),
        ...trusts.map((t) => keyEnv(t).publicKey),
      ];
      expect(callKeyVars(env), name).toEqual(wanted.sort());
    }
    expect(callKeyVars(api.stack.processEnv.gateway!)).toEqual(["GATEWAY_PRIVATE_KEY"]);
    expect(callKeyVars(api.stack.processEnv.identity!)).toEqual([
      "CATALOG_PUBLIC_KEY",
      "DATASET_PUBLIC_KEY",
      "GATEWAY_PUBLIC_KEY",
      "TASK_RUNNER_PUBLIC_KEY",
      "TRACING_PUBLIC_KEY",
      "WEBHOOK_DISPATCHER_PUBLIC_KEY",
    ]);
    // Nothing shared by every process signs anything.
    expect(callKeyVars(api.stack.env)).toEqual([]);
    expect(api.stack.env).not.toHaveProperty("ARGUS_PRINCIPAL_SECRET");
  });
});
