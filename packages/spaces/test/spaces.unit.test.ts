import { describe, expect, it } from "vitest";
import type { PoolClient, QueryConfig } from "pg";
import type { StoredEvent } from "@argus/eventstore";
import type { SpaceDeleted } from "@argus/contracts";
import { notFound, type CallContext } from "@argus/platform";
import { testPrincipal } from "@argus/platform/testing";
import { AccountRole, type Principal } from "@argus/proto/common/v1";
import {
  ACCESS_FACTS_SQL,
  accessFactsMigration,
  listableSpaces,
  type SpaceRef,
  type Spaces,
  restrictionsConsumer,
  spaceDeletedOf,
  spaceEventsConsumer,
} from "../src/index.ts";

const SPACE = "00000000-0000-4000-8000-000000000001";
const ACCOUNT = "00000000-0000-4000-8000-000000000002";
const ORG = "00000000-0000-4000-8000-000000000003";

const event = (type: string, data: unknown): StoredEvent => ({
  globalPosition: 1n,
  transactionId: 1n,
  streamId: `space-${SPACE}`,
  streamVersion: 1,
  eventId: "00000000-0000-4000-8000-0000000000ee",
  type,
  data,
  metadata: {},
  recordedAt: new Date(),
});

/** A transaction that records its statements. */
function recordingTx() {
  const statements: { text: string; values: unknown[] }[] = [];
  const tx = {
    query: async (statement: string | QueryConfig, values: unknown[] = []) => {
      statements.push(
        typeof statement === "string"
          ? { text: statement, values }
          : { text: statement.text, values: statement.values ?? [] },
      );
      return { rows: [], rowCount: 0 };
    },
  } as unknown as PoolClient;
  return { tx, statements };
}

const deletedData = { id: SPACE, account_id: ACCOUNT, organization_id: ORG, deleted_at: "now" };

describe("spaceDeletedOf", () => {
  it("reads identity's SpaceDeleted and skips other events", () => {
    expect(spaceDeletedOf(event("SpaceDeleted", deletedData))).toEqual({
      type: "SpaceDeleted",
      data: deletedData,
    });
    expect(spaceDeletedOf(event("SpaceCreated", { id: SPACE }))).toBeUndefined();
  });

  it("refuses a SpaceDeleted without the contract's shape", () => {
    expect(() => spaceDeletedOf(event("SpaceDeleted", { id: SPACE }))).toThrow(/contract's shape/);
  });
});

describe("spaceEventsConsumer", () => {
  const consumer = (seen: SpaceDeleted[]) =>
    spaceEventsConsumer({
      durable: "svc-space-cascade",
      subjectRoot: "argus",
      onSpaceDeleted: async (_tx, deleted) => void seen.push(deleted),
    });

  it("is the service's durable on identity's space events", () => {
    const c = consumer([]);
    expect(c.durable).toBe("svc-space-cascade");
    expect(c.filterSubject).toBe("argus.identity.space.>");
  });

  it("keeps space_facts for every space event; only SpaceDeleted runs the cascade", async () => {
    const seen: SpaceDeleted[] = [];
    const { tx, statements } = recordingTx();
    const c = consumer(seen);
    await c.handler(
      tx,
      event("SpaceCreated", {
        id: SPACE,
        account_id: ACCOUNT,
        organization_id: ORG,
        is_private: true,
      }),
    );
    await c.handler(tx, event("SpaceUpdated", { id: SPACE, is_private: false }));
    expect(seen).toEqual([]);
    await c.handler(tx, event("SpaceDeleted", deletedData));
    expect(statements.map((s) => s.text.split(/\s+/)[0])).toEqual(["insert", "update", "delete"]);
    expect(statements.every((s) => s.text.includes("space_facts"))).toBe(true);
    expect(seen).toEqual([{ type: "SpaceDeleted", data: deletedData }]);
  });
});

describe("restrictionsConsumer", () => {
  it("is the service's durable on identity's restriction events", async () => {
    const c = restrictionsConsumer({ durable: "svc-restrictions", subjectRoot: "argus" });
    expect(c.durable).toBe("svc-restrictions");
    expect(c.filterSubject).toBe("argus.identity.restriction.>");
    const { tx, statements } = recordingTx();
    await c.handler(
      tx,
      event("ResourceRestrictionCreated", {
        resource_type: "PROJECT",
        resource_id: SPACE,
        account_id: ACCOUNT,
      }),
    );
    expect(statements[0]!.text).toContain("insert into restricted_projects");
  });
});

describe("accessFactsMigration", () => {
  it("names the migration as loadMigrations names NNNN_name.sql", () => {
    expect(accessFactsMigration(2)).toEqual({ id: "0002_access_facts", sql: ACCESS_FACTS_SQL });
    expect(accessFactsMigration(31, "space_facts").id).toBe("0031_space_facts");
    expect(ACCESS_FACTS_SQL).toMatch(/create table space_facts/);
    expect(ACCESS_FACTS_SQL).toMatch(/create table restricted_projects/);
  });

  it("refuses versions and names a migration file could not have", () => {
    expect(() => accessFactsMigration(10000)).toThrow();
    expect(() => accessFactsMigration(1.5)).toThrow();
    expect(() => accessFactsMigration(3, "Access-Facts")).toThrow();
  });
});

describe("listableSpaces with a space_id filter", () => {
  /** Spaces whose copy holds `known`; `get` answers identity's verdict and counts its calls. */
  function spacesWith(known: readonly string[], identity: (id: string) => SpaceRef | undefined) {
    const calls: string[] = [];
    const spaces = {
      known: async (_ctx: CallContext, id: string) => known.includes(id),
      get: async (_ctx: CallContext, id: string) => {
        calls.push(id);
        const found = identity(id);
        if (!found) throw notFound("space");
        return found;
      },
    } as unknown as Spaces;
    return { spaces, calls };
  }
  const ref = (id: string, isPrivate = false): SpaceRef => ({
    id,
    organizationId: ORG,
    isPrivate,
    name: "s",
  });
  const ctxOf = (principal: Principal) => ({ principal }) as unknown as CallContext;
  const admin = testPrincipal({ accountId: ACCOUNT, accountRole: AccountRole.ACCOUNT_ROLE_ADMIN });
  const filter = { spaceId: SPACE, spaceName: "" };
  const list = (spaces: Spaces, p: Principal) =>
    listableSpaces(spaces, ctxOf(p), filter, "DATASET_READ", "d.space_id", 5);

  it("asks identity nothing when the grants decide and the service's copy holds the space", async () => {
    const granted = testPrincipal({ accountId: ACCOUNT, perms: { [SPACE]: ["DATASET_READ"] } });
    for (const p of [admin, granted]) {
      const { spaces, calls } = spacesWith([SPACE], ref);
      const readable = await list(spaces, p);
      expect(readable.params[0]).toEqual([SPACE]);
      expect(calls).toEqual([]);
    }
  });

  it("asks identity for a space the copy lacks: found is listed, unknown is 404", async () => {
    const found = spacesWith([], ref);
    expect((await list(found.spaces, admin)).params[0]).toEqual([SPACE]);
    expect(found.calls).toEqual([SPACE]);
    const missing = spacesWith([], () => undefined);
    await expect(list(missing.spaces, admin)).rejects.toMatchObject({ type: "resource-not-found" });
  });

  it("asks identity when only the space's facts decide (a member reading a public space)", async () => {
    const member = testPrincipal({ accountId: ACCOUNT, organizationIds: [ORG] });
    const { spaces, calls } = spacesWith([SPACE], ref);
    expect((await list(spaces, member)).params[0]).toEqual([SPACE]);
    expect(calls).toEqual([SPACE]);
  });
});
