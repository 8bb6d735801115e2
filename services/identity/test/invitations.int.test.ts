import { createHmac } from "node:crypto";
import type * as grpc from "@grpc/grpc-js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import {
  GATEWAY_PRINCIPAL,
  callUnary,
  createChannel,
  createLogger,
  fromGrpcError,
  type Principal,
} from "@argus/platform";
import {
  createTestDatabase,
  freePort,
  testInfra,
  uniqueName,
  type TestDatabase,
} from "@argus/testkit";
import { loadIdentityConfig, startIdentity, type RunningIdentity } from "../src/index.ts";

const SECRET = "p".repeat(32);
const PEPPER = "q".repeat(32);
const API_KEY = `ak-inv-${"i".repeat(40)}`;

let db: TestDatabase;
let sql: pg.Pool;
let identity: RunningIdentity;
let channel: grpc.Client;
let admin: Principal;

const call = <Req, Res>(
  method: Parameters<typeof callUnary<Req, Res>>[1],
  req: Req,
  principal = admin,
) => callUnary(channel, method, req, { principal, principalSecret: SECRET, requestId: "t" });

const problemOf = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return "ok";
  } catch (err) {
    return fromGrpcError(err).type;
  }
};

const hash = (raw: string) => createHmac("sha256", PEPPER).update(raw, "utf8").digest();
const accept = (token: string) =>
  call(IdentityServiceService.acceptInvitation, { token }, GATEWAY_PRINCIPAL);

let n = 0;
async function invite(): Promise<string> {
  n += 1;
  const u = await call(IdentityServiceService.createUser, {
    name: `invitee ${n}`,
    email: `invitee-${n}-${uniqueName("e")}@example.com`,
    accountRole: "member",
    inviteMode: "EMAIL_LINK",
  });
  return u.user!.id;
}

/**
 * The raw token is only ever e-mailed, so the test plants a token it knows (hashed exactly as
 * identity hashes it) with an explicit expiry relative to the database clock.
 */
async function plant(userId: string, token: string, expiresInMs: number): Promise<void> {
  const res = await sql.query(
    `update invitation_tokens set token_hash = $2, expires_at = now() + make_interval(secs => $3::float8 / 1000)
      where user_id = $1`,
    [userId, hash(token), expiresInMs],
  );
  expect(res.rowCount).toBe(1);
}

beforeAll(async () => {
  const infra = testInfra();
  db = await createTestDatabase(infra);
  const config = {
    DATABASE_URL: db.url,
    NATS_URL: infra.natsUrl,
    IDENTITY_GRPC_PORT: String(await freePort()),
    IDENTITY_PROBE_PORT: "0",
    ARGUS_PRINCIPAL_SECRET: SECRET,
    ARGUS_API_KEY_PEPPER: PEPPER,
    ARGUS_INIT_API_KEY: API_KEY,
    ARGUS_EVENTS_STREAM: uniqueName("INV"),
    ARGUS_SUBJECT_ROOT: uniqueName("inv"),
  };
  identity = await startIdentity(
    config,
    createLogger({ service: "invitations-test", level: "warn" }),
  );
  channel = createChannel(`127.0.0.1:${identity.grpcPort}`);
  sql = new pg.Pool({ connectionString: db.url, options: "-c search_path=identity", max: 2 });
  admin = (await call(IdentityServiceService.authenticate, { apiKey: API_KEY }, GATEWAY_PRINCIPAL))
    .principal!;
});

afterAll(async () => {
  channel?.close();
  await sql?.end();
  await identity?.stop();
  await db?.drop();
});

describe("invitation tokens", () => {
  it("an invite stores only a token hash with a 7-day expiry; no event carries it", async () => {
    const id = await invite();
    const t = await sql.query(
      "select token_hash, expires_at - now() > interval '6 days 23 hours' as fresh from invitation_tokens where user_id = $1",
      [id],
    );
    expect(t.rows[0].fresh).toBe(true);
    expect((t.rows[0].token_hash as Buffer).length).toBe(32);
    const ev = await sql.query("select data::text as data from events where stream_id = $1", [
      `user-${id}`,
    ]);
    expect(ev.rows.map((r) => r.data).join()).not.toMatch(/token/);
    expect((await call(IdentityServiceService.getUser, { id })).status).toBe("INVITED");
  });

  it("accepting a valid token just before its expiry makes the user ACTIVE, once", async () => {
    const id = await invite();
    await plant(id, "tok-valid", 5_000);
    const user = await accept("tok-valid");
    expect(user).toMatchObject({ id, status: "ACTIVE" });
    expect((await call(IdentityServiceService.getUser, { id })).status).toBe("ACTIVE");
    const ev = await sql.query(
      "select event_type, metadata from events where stream_id = $1 order by global_position desc limit 1",
      [`user-${id}`],
    );
    expect(ev.rows[0].event_type).toBe("UserInvitationAccepted");
    expect(ev.rows[0].metadata).toMatchObject({ actor_user_id: id, account_id: admin.accountId });
    // The token is consumed: a second use is unknown.
    expect(await problemOf(accept("tok-valid"))).toBe("resource-not-found");
    const left = await sql.query("select 1 from invitation_tokens where user_id = $1", [id]);
    expect(left.rowCount).toBe(0);
  });

  it("a token just past its expiry is 422 and the user stays EXPIRED", async () => {
    const id = await invite();
    await plant(id, "tok-lapsed", -1);
    expect(await problemOf(accept("tok-lapsed"))).toBe("unprocessable-entity");
    expect((await call(IdentityServiceService.getUser, { id })).status).toBe("EXPIRED");
  });

  it("unknown or empty tokens are 404 / 400", async () => {
    expect(await problemOf(accept("no-such-token"))).toBe("resource-not-found");
    expect(await problemOf(accept(""))).toBe("invalid-request");
  });

  it("a resend rotates the token and restarts the expiry: the old token stops working", async () => {
    const id = await invite();
    await plant(id, "tok-old", -1);
    expect((await call(IdentityServiceService.getUser, { id })).status).toBe("EXPIRED");
    await call(IdentityServiceService.resendUserInvitation, { id });
    const t = await sql.query(
      "select token_hash, expires_at - now() > interval '6 days 23 hours' as fresh from invitation_tokens where user_id = $1",
      [id],
    );
    expect(t.rows[0].fresh).toBe(true);
    expect((t.rows[0].token_hash as Buffer).equals(hash("tok-old"))).toBe(false);
    expect(await problemOf(accept("tok-old"))).toBe("resource-not-found");
    expect((await call(IdentityServiceService.getUser, { id })).status).toBe("INVITED");
  });

  it("a deleted user's invitation cannot be accepted", async () => {
    const id = await invite();
    await plant(id, "tok-deleted", 60_000);
    await call(IdentityServiceService.deleteUser, { id });
    expect(await problemOf(accept("tok-deleted"))).toBe("resource-not-found");
  });
});
