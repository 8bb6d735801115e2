import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { TracingServiceService as T } from "@argus/proto/tracing/v1/tracing";
import { predefinedRole, type Principal } from "@argus/platform";
import { startedForFile, uniqueName } from "@argus/testkit";
import { exportRaw, listSpans, listTraces, newSpanId, projectIdOf, traceSpans } from "./spans.ts";
import { problemOf, startTracingUnderTest } from "./tracingUnderTest.ts";

const t = startedForFile(() => startTracingUnderTest());
let privateSpace: string;
let publicSpace: string;

/** A project of `spaceId` with spans, exported by the admin. */
async function adminProject(
  spaceId: string,
): Promise<{ name: string; id: string; spanId: string }> {
  const name = uniqueName("proj");
  const sent = traceSpans(2);
  expect((await exportRaw(t, name, sent, { spaceId })).rejectedSpans).toBe(0n);
  return { name, id: await projectIdOf(t, name, spaceId), spanId: sent[0]!.spanId };
}

/** What each operation on a project's spans answers `as`. */
async function outcomes(
  p: { name: string; id: string; spanId: string },
  spaceId: string,
  as: Principal,
) {
  return {
    export: await problemOf(exportRaw(t, p.name, traceSpans(1), { spaceId, as })),
    listSpans: await problemOf(listSpans(t, p.id, {}, as)),
    listTraces: await problemOf(listTraces(t, p.id, {}, as)),
    annotate: await problemOf(
      t.call(
        T.annotateSpans,
        {
          projectId: p.id,
          startTime: "",
          endTime: "",
          granularity: "SPAN",
          annotations: JSON.stringify([
            { record_id: p.spanId, values: [{ name: "notes", text: "x" }] },
          ]),
        },
        as,
      ),
    ),
    delete: await problemOf(
      t.call(
        T.deleteSpans,
        { projectId: p.id, spanIds: [newSpanId()], startTime: "", endTime: "" },
        as,
      ),
    ),
  };
}

beforeAll(async () => {
  privateSpace = await t.createSpace(true);
  publicSpace = await t.createSpace(false);
  for (const spaceId of [privateSpace, publicSpace]) await t.createNotesConfig(spaceId);
});

describe("spaces", () => {
  it("a member bound nowhere in a private space sees nothing of it (404)", async () => {
    const p = await adminProject(privateSpace);
    expect(await outcomes(p, privateSpace, t.member())).toEqual({
      export: "resource-not-found",
      listSpans: "resource-not-found",
      listTraces: "resource-not-found",
      annotate: "resource-not-found",
      delete: "resource-not-found",
    });
    // Nor does a member bound in another space.
    expect(await outcomes(p, privateSpace, t.member({ [publicSpace]: "ADMIN" }))).toMatchObject({
      export: "resource-not-found",
      listSpans: "resource-not-found",
    });
    // Nothing was stored for them.
    expect(await listSpans(t, p.id)).toHaveLength(2);
  });

  it("a space role decides what a member may do there", async () => {
    const p = await adminProject(privateSpace);
    expect(await outcomes(p, privateSpace, t.member({ [privateSpace]: "READ_ONLY" }))).toEqual({
      export: "access-forbidden",
      listSpans: "ok",
      listTraces: "ok",
      annotate: "access-forbidden",
      delete: "access-forbidden",
    });
    expect(await outcomes(p, privateSpace, t.member({ [privateSpace]: "ANNOTATOR" }))).toEqual({
      export: "access-forbidden",
      listSpans: "ok",
      listTraces: "ok",
      annotate: "ok",
      delete: "access-forbidden",
    });
    expect(await outcomes(p, privateSpace, t.member({ [privateSpace]: "MEMBER" }))).toEqual({
      export: "ok",
      listSpans: "ok",
      listTraces: "ok",
      annotate: "ok",
      delete: "ok",
    });
    // Exactly the permissions named: reading spans needs PROJECT_SPAN_READ too.
    expect(
      await outcomes(p, privateSpace, t.member({ [privateSpace]: ["PROJECT_READ"] })),
    ).toMatchObject({ listSpans: "access-forbidden", export: "access-forbidden" });
    expect(
      await outcomes(
        p,
        privateSpace,
        t.member({ [privateSpace]: ["PROJECT_READ", "PROJECT_SPAN_CREATE"] }),
      ),
    ).toMatchObject({ export: "ok", listSpans: "access-forbidden" });
    // The member's export was stored (2 + 1 + 1).
    expect(await listSpans(t, p.id)).toHaveLength(4);
  });

  it("an account member reads a public space's spans, and writes none without a role", async () => {
    const p = await adminProject(publicSpace);
    expect(await outcomes(p, publicSpace, t.member())).toEqual({
      export: "access-forbidden",
      listSpans: "ok",
      listTraces: "ok",
      annotate: "access-forbidden",
      delete: "access-forbidden",
    });
    // A first export of a new project name in a space the caller may not write to creates nothing.
    const fresh = uniqueName("proj");
    expect(
      await problemOf(exportRaw(t, fresh, traceSpans(1), { spaceId: publicSpace, as: t.member() })),
    ).toBe("access-forbidden");
    expect(await problemOf(projectIdOf(t, fresh, publicSpace))).not.toBe("ok");
  });

  it("an export to a space that is not there, or no space, is not found", async () => {
    for (const spaceId of [randomUUID(), "not-a-uuid", ""])
      expect({
        spaceId,
        problem: await problemOf(exportRaw(t, uniqueName("p"), traceSpans(1), { spaceId })),
      }).toEqual({
        spaceId,
        problem: "resource-not-found",
      });
  });

  it("a project of another account is not found", async () => {
    const p = await adminProject(publicSpace);
    const stranger = t.member({}, { accountId: randomUUID() });
    expect(await problemOf(listSpans(t, p.id, {}, stranger))).toBe("resource-not-found");
    expect(await problemOf(listSpans(t, randomUUID()))).toBe("resource-not-found");
    expect(await problemOf(listSpans(t, "not-a-uuid"))).toBe("resource-not-found");
  });
});

describe("restricted projects", () => {
  it("answer only to their own bindings: others may neither list nor export", async () => {
    const p = await adminProject(publicSpace);
    const open = await adminProject(publicSpace);
    await t.callOn(t.identity, IdentityServiceService.createResourceRestriction, {
      resourceId: p.id,
      resourceType: "PROJECT",
      spaceId: publicSpace,
    });
    const spaceMember = t.member({ [publicSpace]: "MEMBER" });
    expect(await outcomes(p, publicSpace, spaceMember)).toEqual({
      export: "resource-not-found",
      listSpans: "resource-not-found",
      listTraces: "resource-not-found",
      annotate: "resource-not-found",
      delete: "resource-not-found",
    });
    // An export naming the restricted project and another one stores the other one's spans only.
    const both = {
      resourceSpans: [p.name, open.name].map((name) => ({
        resource: {
          attributes: [{ key: "openinference.project.name", value: { stringValue: name } }],
        },
        scopeSpans: [
          {
            spans: traceSpans(3).map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              name: s.name,
              startTimeUnixNano: (BigInt(s.startMs!) * 1_000_000n).toString(),
              endTimeUnixNano: (BigInt(s.startMs! + 1) * 1_000_000n).toString(),
            })),
          },
        ],
      })),
    };
    const res = await t.call(
      T.export,
      { payload: Buffer.from(JSON.stringify(both)), encoding: 2, spaceId: publicSpace },
      spaceMember,
    );
    expect(res.rejectedSpans).toBe(3n);
    expect(res.errorMessage).toContain(p.name);
    expect(await listSpans(t, open.id)).toHaveLength(5);
    expect(await listSpans(t, p.id)).toHaveLength(2);

    // A PROJECT binding opens it, as far as its role goes.
    const bound = (role: "MEMBER" | "READ_ONLY") =>
      t.member(
        { [publicSpace]: "MEMBER" },
        { projectGrants: [{ roleId: predefinedRole(role).id, resourceIds: [p.id] }] },
      );
    expect(await outcomes(p, publicSpace, bound("READ_ONLY"))).toEqual({
      export: "access-forbidden",
      listSpans: "ok",
      listTraces: "ok",
      annotate: "access-forbidden",
      delete: "access-forbidden",
    });
    expect(await outcomes(p, publicSpace, bound("MEMBER"))).toEqual({
      export: "ok",
      listSpans: "ok",
      listTraces: "ok",
      annotate: "ok",
      delete: "ok",
    });
    // The account admin is never restricted.
    expect(await outcomes(p, publicSpace, t.admin)).toMatchObject({
      export: "ok",
      listSpans: "ok",
    });

    // Lifting the restriction gives the space's members their rights back.
    await t.callOn(t.identity, IdentityServiceService.deleteResourceRestriction, {
      resourceId: p.id,
    });
    expect(await outcomes(p, publicSpace, spaceMember)).toMatchObject({
      export: "ok",
      listSpans: "ok",
    });
  });
});
