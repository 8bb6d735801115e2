import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { uniqueName } from "@argus/testkit";
import {
  PEPPER,
  problemOf,
  startIdentityUnderTest,
  type IdentityUnderTest,
} from "./identityUnderTest.ts";

const API_KEY = `ak-inv-${"i".repeat(40)}`;

let srv: IdentityUnderTest;
const call: IdentityUnderTest["call"] = (method, req, principal) =>
  srv.call(method, req, principal);

const hash = (raw: string) => createHmac("sha256", PEPPER).update(raw, "utf8").digest();
const accept = (token: string) =>
  srv.callAs("gateway", IdentityServiceService.acceptInvitation, { token });

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
  const res = await srv.sql.query(
    `update invitation_tokens set token_hash = $2, expires_at = now() + make_interval(secs => $3::float8 / 1000)
      where user_id = $1`,
    [userId, hash(token), expiresInMs],
  );
  expect(res.rowCount).toBe(1);
}

beforeAll(async () => {
  srv = await startIdentityUnderTest("inv", API_KEY);
});

afterAll(() => srv?.stop());

describe("invitation tokens", () => {
  it("an invite stores only a token hash with a 7-day expiry; no event carries it", async () => {
    const id = await invite();
    const t = await srv.sql.query(
      "select token_hash, expires_at - now() > interval '6 days 23 hours' as fresh from invitation_tokens where user_id = $1",
      [id],
    );
    expect(t.rows[0].fresh).toBe(true);
    expect((t.rows[0].token_hash as Buffer).length).toBe(32);
    const ev = await srv.sql.query("select data::text as data from events where stream_id = $1", [
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
    const ev = await srv.sql.query(
      "select event_type, metadata from events where stream_id = $1 order by global_position desc limit 1",
      [`user-${id}`],
    );
    expect(ev.rows[0].event_type).toBe("UserInvitationAccepted");
    expect(ev.rows[0].metadata).toMatchObject({
      actor_user_id: id,
      account_id: srv.admin.accountId,
    });
    // The token is consumed: a second use is unknown.
    expect(await problemOf(accept("tok-valid"))).toBe("resource-not-found");
    const left = await srv.sql.query("select 1 from invitation_tokens where user_id = $1", [id]);
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
    const t = await srv.sql.query(
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
