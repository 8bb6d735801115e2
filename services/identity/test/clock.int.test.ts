/**
 * Identity takes "now" from the one clock in its deps: started with a pinned clock, what it
 * records and what it computes from time (an invitation's status) follow that clock, not the
 * machine's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "@argus/platform";
import { IdentityServiceService as S } from "@argus/proto/identity/v1";
import { uniqueName } from "@argus/testkit";
import { INVITATION_TTL_MS } from "../src/users/userRules.ts";
import { startIdentityUnderTest, type IdentityUnderTest } from "./identityUnderTest.ts";

// Years away from the machine's clock, so nothing here can pass by reading it.
const PINNED = new Date("2031-05-06T07:08:09.000Z");
const clock = fixedClock(PINNED);

let t: IdentityUnderTest;

beforeAll(async () => {
  t = await startIdentityUnderTest("idclock", `ak-int-${"c".repeat(40)}`, { clock });
});

afterAll(() => t?.stop());

describe("a pinned clock", () => {
  it("dates what headless initialization creates", async () => {
    const org = await t.call(S.getOrganization, { id: t.organizationId });
    expect(org.createdAt).toBe(PINNED.toISOString());
  });

  it("dates what commands create, and moves only when it is moved", async () => {
    clock.set(PINNED);
    const org = await t.call(S.createOrganization, { name: uniqueName("o"), description: "" });
    expect(org.createdAt).toBe(PINNED.toISOString());
    clock.advance(1_000);
    const space = await t.call(S.createSpace, {
      organizationId: org.id,
      name: "s",
      description: "",
      isPrivate: false,
    });
    expect(space.createdAt).toBe(new Date(PINNED.getTime() + 1_000).toISOString());
  });

  it("decides an invitation's status: INVITED until its expiry instant, EXPIRED from it", async () => {
    clock.set(PINNED);
    const email = `${uniqueName("invitee")}@example.com`;
    const created = await t.call(S.createUser, {
      name: "invitee",
      email,
      accountRole: "member",
      inviteMode: "EMAIL_LINK",
    });
    const id = created.user!.id;
    expect(created.user!.createdAt).toBe(PINNED.toISOString());
    const status = async () => (await t.call(S.getUser, { id })).status;
    const listed = async () =>
      (
        await t.call(S.listUsers, {
          email,
          statuses: ["EXPIRED"],
          page: { limit: 10, after: "" },
        })
      ).users.map((u) => u.id);

    clock.set(new Date(PINNED.getTime() + INVITATION_TTL_MS - 1));
    expect(await status()).toBe("INVITED");
    expect(await listed()).toEqual([]);

    clock.set(new Date(PINNED.getTime() + INVITATION_TTL_MS));
    expect(await status()).toBe("EXPIRED");
    expect(await listed()).toEqual([id]);
  });
});
