import { grantsFor } from "@argus/platform/testing";
import * as grpc from "@grpc/grpc-js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountRole, KeyType } from "@argus/proto/common/v1";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { AuditServiceService } from "@argus/proto/identity/v1/audit";
import { parsePrivateKey, principalSigner, type Principal } from "@argus/platform";
import {
  KEYS,
  problemOf,
  startIdentityUnderTest,
  type IdentityUnderTest,
} from "./identityUnderTest.ts";

const API_KEY = `ak-int-${"i".repeat(40)}`;

let t: IdentityUnderTest;
let admin: Principal;
const call: IdentityUnderTest["call"] = (method, req, principal, signer) =>
  t.call(method, req, principal, signer);

beforeAll(async () => {
  t = await startIdentityUnderTest("id", API_KEY);
  admin = t.admin;
});

afterAll(() => t?.stop());

describe("Authenticate", () => {
  it("resolves the initial key to the admin USER principal", () => {
    expect(admin).toMatchObject({
      keyType: KeyType.KEY_TYPE_USER,
      accountRole: AccountRole.ACCOUNT_ROLE_ADMIN,
      isDeveloper: true,
    });
    expect(admin.userId).not.toBe("");
    // An account admin belongs to every organization without their being listed.
    expect(admin.organizationIds).toEqual([]);
  });

  it("records last_used_at of the key that authenticated", async () => {
    const pool = new pg.Pool({ connectionString: t.db.url });
    let usedAt: Date | null = null;
    for (let i = 0; i < 50 && !usedAt; i++) {
      usedAt = (
        await pool.query("select last_used_at from identity.api_keys where id = $1", [
          admin.apiKeyId,
        ])
      ).rows[0].last_used_at as Date | null;
      if (!usedAt) await new Promise((r) => setTimeout(r, 50));
    }
    await pool.end();
    expect(usedAt).toBeInstanceOf(Date);
  });

  it("answers the standard gRPC health protocol", async () => {
    const status = await new Promise<Buffer>((resolve, reject) =>
      t.channel.makeUnaryRequest(
        "/grpc.health.v1.Health/Check",
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.alloc(0),
        new grpc.Metadata(),
        { deadline: Date.now() + 5_000 },
        (err, res) => (err ? reject(err) : resolve(res!)),
      ),
    );
    // HealthCheckResponse { status: SERVING (1) } on the wire: field 1, varint 1.
    expect([...status]).toEqual([0x08, 0x01]);
  });

  it("an unknown, empty or oversized key is UNAUTHENTICATED", async () => {
    for (const apiKey of ["", `${API_KEY}x`, "a".repeat(513)]) {
      expect(
        await problemOf(t.callAs("gateway", IdentityServiceService.authenticate, { apiKey })),
      ).toBe("authentication-required");
    }
  });
});

describe("signed principals", () => {
  it("a call without a principal, or one signed by another key than the gateway's, is refused", async () => {
    const bare = new Promise((resolve, reject) =>
      t.channel.makeUnaryRequest(
        IdentityServiceService.listSpaces.path,
        IdentityServiceService.listSpaces.requestSerialize,
        IdentityServiceService.listSpaces.responseDeserialize,
        { name: "", organizationId: "" },
        new grpc.Metadata(),
        { deadline: Date.now() + 5_000 },
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    );
    expect(await problemOf(bare)).toBe("authentication-required");
    expect(
      await problemOf(
        call(
          IdentityServiceService.listSpaces,
          { name: "", organizationId: "" },
          admin,
          // The catalog's own key: a service cannot mint a caller.
          principalSigner(parsePrivateKey(KEYS.catalog!.privateKey)),
        ),
      ),
    ).toBe("authentication-required");
  });
});

describe("CreateSpace", () => {
  it("20 concurrent creates of one name: exactly one wins, the rest conflict", async () => {
    const organizationId = t.organizationId;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        problemOf(
          call(IdentityServiceService.createSpace, {
            organizationId,
            name: "race",
            description: "",
            isPrivate: false,
          }),
        ),
      ),
    );
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(results.filter((r) => r === "resource-conflict")).toHaveLength(19);
    const pool = new pg.Pool({ connectionString: t.db.url });
    const spaces = await pool.query(
      "select count(*)::int as n from identity.spaces where name = 'race'",
    );
    const events = await pool.query(
      "select count(*)::int as n from identity.events where event_type = 'SpaceCreated' and data->>'name' = 'race'",
    );
    await pool.end();
    expect(spaces.rows[0].n).toBe(1);
    expect(events.rows[0].n).toBe(1);
  });

  it("a member who is not an admin may not create spaces", async () => {
    const member = { ...admin, accountRole: AccountRole.ACCOUNT_ROLE_MEMBER };
    const organizationId = t.organizationId;
    expect(
      await problemOf(
        call(
          IdentityServiceService.createSpace,
          { organizationId, name: "m", description: "", isPrivate: false },
          member,
        ),
      ),
    ).toBe("access-forbidden");
  });

  it("private spaces are hidden (404) from non-members who are not admins", async () => {
    const organizationId = t.organizationId;
    const secret = await call(IdentityServiceService.createSpace, {
      organizationId,
      name: "hidden",
      description: "",
      isPrivate: true,
    });
    const member = { ...admin, accountRole: AccountRole.ACCOUNT_ROLE_MEMBER };
    expect(await problemOf(call(IdentityServiceService.getSpace, { id: secret.id }, member))).toBe(
      "resource-not-found",
    );
    const listed = await call(
      IdentityServiceService.listSpaces,
      { name: "hidden", organizationId: "" },
      member,
    );
    expect(listed.spaces).toHaveLength(0);
    const asMember = {
      ...member,
      ...grantsFor({ [secret.id]: ["SPACE_READ"] }),
    };
    expect((await call(IdentityServiceService.getSpace, { id: secret.id }, asMember)).name).toBe(
      "hidden",
    );
  });

  it("a space of another account is 404", async () => {
    const stranger = { ...admin, accountId: "00000000-0000-7000-8000-000000000000" };
    const mine = await call(IdentityServiceService.listSpaces, {
      name: "race",
      organizationId: "",
    });
    expect(
      await problemOf(call(IdentityServiceService.getSpace, { id: mine.spaces[0]!.id }, stranger)),
    ).toBe("resource-not-found");
  });
});

describe("secrets", () => {
  it("no event payload or metadata holds the raw key or its hash", async () => {
    const pool = new pg.Pool({ connectionString: t.db.url });
    const rows = await pool.query<{ t: string }>(
      "select data::text || metadata::text as t from identity.events",
    );
    const hash = await pool.query<{ h: string }>(
      "select encode(key_hash, 'hex') as h from identity.api_key_secrets",
    );
    await pool.end();
    const all = rows.rows.map((r) => r.t).join("\n");
    expect(rows.rows.length).toBeGreaterThan(0);
    expect(all).not.toContain(API_KEY);
    for (const { h } of hash.rows) {
      expect(all).not.toContain(h);
      expect(all).not.toContain(Buffer.from(h, "hex").toString("base64"));
    }
  });

  it("restarting with the same initialization settings appends no event", async () => {
    const pool = new pg.Pool({ connectionString: t.db.url });
    const count = async () =>
      (await pool.query("select count(*)::int as n from identity.events")).rows[0].n as number;
    const before = await count();
    await t.restart();
    expect(await count()).toBe(before);
    await pool.end();
  });
});

describe("storage", () => {
  it("compresses audit entries' variables with lz4, which this Postgres has", async () => {
    const { rows } = await t.sql.query<{ attname: string; attcompression: string }>(
      `select attname, attcompression from pg_attribute
        where attrelid = 'identity.audit_log'::regclass and attname like 'variables%'
        order by attname`,
    );
    expect(rows).toEqual([
      { attname: "variables", attcompression: "l" },
      { attname: "variables_json", attcompression: "l" },
    ]);
  });

  // Entries written before migration 0030 keep their variables as jsonb.
  const entry = (variables: string | null, variablesJson: string | null) =>
    t.sql.query(
      `insert into audit_log (id, event_id, account_id, operation_name, operation_type,
                              resource_type, resource_id, variables, variables_json, occurred_at)
       values (gen_random_uuid(), gen_random_uuid(), $1, 'OldEntry', 'MUTATION', 'dataset',
               'd', $2, $3, now())
       returning id`,
      [admin.accountId, variables, variablesJson],
    );

  it("gives back an entry written before its variables had a json column, the same", async () => {
    const { rows } = await entry('{"name": "old", "examples": [{"id": "a"}]}', null);
    const { logs } = await call(
      AuditServiceService.listAuditLogs,
      {
        operationNames: ["OldEntry"],
        operationName: "",
        startTime: "",
        endTime: "",
        userId: "",
        operationType: "",
      },
      admin,
    );
    const old = logs.find((l) => l.id === rows[0].id);
    expect(JSON.parse(old!.variables)).toEqual({ name: "old", examples: [{ id: "a" }] });
  });

  it("refuses an entry with both kinds of variables, or neither", async () => {
    const both: [string | null, string | null][] = [
      ['{"a": 1}', '{"a":1}'],
      [null, null],
    ];
    for (const [v, j] of both) await expect(entry(v, j)).rejects.toMatchObject({ code: "23514" });
  });
});
