import { grantsFor } from "@argus/platform/testing";
import { randomUUID } from "node:crypto";
import pg from "pg";
import type * as grpc from "@grpc/grpc-js";
import { connect, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AccountRole } from "@argus/proto/common/v1";
import { ProjectServiceService } from "@argus/proto/catalog/v1/projects";
import { TagServiceService } from "@argus/proto/catalog/v1/tags";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { callUnary, createChannel, createLogger, type Principal } from "@argus/platform";
import {
  freePort,
  problemOf,
  startTestEnvironment,
  testCallKeys,
  uniqueName,
  type TestEnvironment,
} from "@argus/testkit";
import {
  startIdentityForOthers,
  type IdentityForOthers,
} from "../../identity/test/identityForOthers.ts";
import { startCatalog, type RunningCatalog } from "../src/index.ts";
import { startDataset } from "../../dataset/src/index.ts";
import { DatasetServiceService } from "@argus/proto/dataset/v1/dataset";

const KEYS = testCallKeys();

let infra: TestEnvironment["infra"];
let db: TestEnvironment["db"];
let env: TestEnvironment["env"];
let identity: IdentityForOthers;
let catalog: RunningCatalog;
let dataset: Awaited<ReturnType<typeof startDataset>>;
let channel: grpc.Client;
let nc: NatsConnection;
let events: Subscription;
const subjects: string[] = [];
let admin: Principal;
let spaceId: string;
let otherSpaceId: string;
let datasetId: string;
let experimentId: string;

const call = <Req, Res>(
  method: Parameters<typeof callUnary<Req, Res>>[1],
  req: Req,
  principal = admin,
) => callUnary(channel, method, req, { credential: KEYS.caller(principal), requestId: "t" });

/** A non-admin of the account with exactly these permissions per space (no account role). */
const member = (perms: Record<string, string[]>): Principal => ({
  ...admin,
  accountRole: AccountRole.ACCOUNT_ROLE_UNSPECIFIED,
  ...grantsFor(perms),
});

const tag = (name: string, space = spaceId, principal = admin) =>
  call(TagServiceService.createTag, { spaceId: space, name }, principal);
const project = (name: string, space = spaceId) =>
  call(ProjectServiceService.createProject, { spaceId: space, name });

beforeAll(async () => {
  ({ infra, db, env } = await startTestEnvironment("cat"));
  identity = await startIdentityForOthers(env, KEYS);
  admin = identity.admin;
  spaceId = identity.spaceId;
  otherSpaceId = (
    await callUnary(
      identity.channel,
      IdentityServiceService.createSpace,
      {
        organizationId: identity.organizationId,
        name: "Other Space",
        description: "",
        isPrivate: false,
      },
      { credential: KEYS.caller(admin), requestId: "t" },
    )
  ).id;

  nc = await connect({ servers: infra.natsUrl });
  events = nc.subscribe(`${env.ARGUS_SUBJECT_ROOT}.catalog.>`, {
    callback: (_e, m) => void subjects.push(m.subject),
  });

  // The dataset service itself, which owns the datasets and experiments tags go on; the two
  // call each other (the catalog asks where a dataset is, the dataset service which annotation
  // configs a space has), so both addresses are chosen before either starts.
  const [catalogPort, datasetPort] = [await freePort(), await freePort()];
  const common = {
    ...env,
    IDENTITY_GRPC_URL: identity.url,
    CATALOG_GRPC_URL: `127.0.0.1:${catalogPort}`,
    DATASET_GRPC_URL: `127.0.0.1:${datasetPort}`,
  };
  dataset = await startDataset(
    {
      ...common,
      DATASET_GRPC_PORT: String(datasetPort),
      DATASET_PROBE_PORT: "0",
      ...KEYS.env("dataset"),
    },
    createLogger({ service: "dataset-test", level: "warn" }),
  );
  catalog = await startCatalog(
    {
      ...common,
      CATALOG_GRPC_PORT: String(catalogPort),
      CATALOG_PROBE_PORT: "0",
      ...KEYS.env("catalog"),
      ARGUS_SECRETS_KEY: "s".repeat(32),
    },
    createLogger({ service: "catalog-test", level: "warn" }),
  );
  channel = createChannel(`127.0.0.1:${catalogPort}`);
  const datasetChannel = createChannel(`127.0.0.1:${datasetPort}`);
  const dsCall = <Req, Res>(m: Parameters<typeof callUnary<Req, Res>>[1], req: Req) =>
    callUnary(datasetChannel, m, req, { credential: KEYS.caller(admin), requestId: "t" });
  datasetId = (
    await dsCall(DatasetServiceService.createDataset, {
      spaceId,
      name: "tagged",
      examples: [{ id: "", fieldsJson: JSON.stringify({ q: "?" }) }],
    })
  ).dataset!.id;
  experimentId = (
    await dsCall(DatasetServiceService.createExperiment, {
      name: "tagged",
      datasetId: "",
      spaceId,
      runs: [{ exampleId: "", output: "o", fieldsJson: "{}" }],
    })
  ).experiment!.id;
  datasetChannel.close();
});

afterAll(async () => {
  events?.unsubscribe();
  await nc?.drain();
  channel?.close();
  await catalog?.stop();
  await dataset?.stop();
  await identity?.stop();
  await db?.drop();
});

describe("tags", () => {
  it("20 concurrent creates of one name (differing in case): exactly one wins, 19 conflict", async () => {
    const names = Array.from({ length: 20 }, (_, i) =>
      i % 2 ? `Race-Tag-${i}`.replace(/-\d+$/, "") : "race-tag".toUpperCase(),
    );
    const outcomes = await Promise.all(names.map((n) => problemOf(tag(n))));
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
    expect(outcomes.filter((o) => o === "resource-conflict")).toHaveLength(19);
    const list = await call(TagServiceService.listTags, {
      page: { limit: 100, after: "" },
      spaceId,
      spaceName: "",
      name: "race-tag",
    });
    expect(list.tags).toHaveLength(1);
  });

  it("racing updates and deletes of one tag: one TagDeleted, last, and no answer is a 500", async () => {
    const t = await tag(uniqueName("race"));
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        problemOf(
          i % 3 === 2
            ? call(TagServiceService.deleteTag, { id: t.id })
            : call(TagServiceService.updateTag, {
                id: t.id,
                description: `d${i}`,
                clearDescription: false,
                clearColor: false,
              }),
        ),
      ),
    );
    for (const a of answers) expect(["ok", "resource-not-found", "resource-conflict"]).toContain(a);
    const pool = new pg.Pool({ connectionString: db.url, options: "-c search_path=catalog" });
    try {
      const { rows } = await pool.query<{ event_type: string }>(
        "select event_type from events where stream_id = $1 order by stream_version",
        [`tag-${t.id}`],
      );
      const types = rows.map((r) => r.event_type);
      // Whichever delete won is the only one that answered ok, and nothing follows it.
      const deletes = answers.filter((a, i) => i % 3 === 2 && a === "ok");
      expect(types[0]).toBe("TagCreated");
      expect(types.filter((e) => e === "TagDeleted")).toHaveLength(deletes.length);
      expect(deletes.length).toBeLessThanOrEqual(1);
      if (deletes.length === 1) expect(types.at(-1)).toBe("TagDeleted");
      // An update answered ok was appended (one may append, then find the tag deleted: 404).
      expect(types.filter((e) => e === "TagUpdated").length).toBeGreaterThanOrEqual(
        answers.filter((a, i) => i % 3 !== 2 && a === "ok").length,
      );
    } finally {
      await pool.end();
    }
  });

  it("a tag in a space of another account, or in no space, is 404", async () => {
    expect(await problemOf(tag("x", randomUUID()))).toBe("resource-not-found");
  });

  it("filters the list by space_name through identity (case-insensitive substring)", async () => {
    await tag("in-other", otherSpaceId);
    const res = await call(TagServiceService.listTags, {
      page: { limit: 100, after: "" },
      spaceId: "",
      spaceName: "OTHER sp",
      name: "",
    });
    expect(res.tags.map((t) => t.name)).toEqual(["in-other"]);
  });

  it("pages the list newest first with the shared cursor helper", async () => {
    for (const n of ["page-a", "page-b", "page-c"]) await tag(n);
    const first = await call(TagServiceService.listTags, {
      page: { limit: 2, after: "" },
      spaceId,
      spaceName: "",
      name: "page-",
    });
    expect(first.tags.map((t) => t.name)).toEqual(["page-c", "page-b"]);
    const second = await call(TagServiceService.listTags, {
      page: { limit: 2, after: first.page!.nextAfter },
      spaceId,
      spaceName: "",
      name: "page-",
    });
    expect(second.tags.map((t) => t.name)).toEqual(["page-a"]);
    expect(second.page!.nextAfter).toBe("");
  });
});

describe("tags on resources owned by the dataset service (asked over gRPC)", () => {
  it("attaches to a dataset and an experiment the dataset service knows, in the tag's space", async () => {
    const t = await tag("ds-tag");
    for (const [type, id] of [
      ["dataset", datasetId],
      ["experiment", experimentId],
    ] as const) {
      const res = await call(TagServiceService.attachTags, {
        resourceType: type,
        resourceId: id,
        tagIds: [t.id],
      });
      expect(res.tags.map((x) => x.name)).toEqual(["ds-tag"]);
    }
  });

  it("192 racing attaches and detaches on one resource all succeed, and the set is their sum", async () => {
    const tags = await Promise.all(
      Array.from({ length: 192 }, (_, i) => tag(uniqueName(`racing-${i}`))),
    );
    const dataset = { resourceType: "dataset", resourceId: datasetId };
    const detached = (i: number) => i % 4 === 3;
    await call(TagServiceService.attachTags, {
      ...dataset,
      tagIds: tags.filter((_, i) => detached(i)).map((t) => t.id),
    });
    const answers = await Promise.all(
      tags.map((t, i) =>
        problemOf(
          detached(i)
            ? call(TagServiceService.detachTags, { ...dataset, tagIds: [t.id] })
            : call(TagServiceService.attachTags, { ...dataset, tagIds: [t.id] }),
        ),
      ),
    );
    expect(answers).toEqual(tags.map(() => "ok"));
    const now = await call(TagServiceService.listResourceTags, dataset);
    const names = new Set(now.tags.map((t) => t.name));
    tags.forEach((t, i) => expect(names.has(t.name)).toBe(!detached(i)));
  });

  it("an unknown dataset, or another resource's id given as a dataset's, is 404", async () => {
    const t = await tag("ds-tag-2");
    for (const id of [randomUUID(), experimentId])
      expect(
        await problemOf(
          call(TagServiceService.attachTags, {
            resourceType: "dataset",
            resourceId: id,
            tagIds: [t.id],
          }),
        ),
      ).toBe("resource-not-found");
  });

  it("a tag of another space is 422", async () => {
    const t = await tag("elsewhere", otherSpaceId);
    expect(
      await problemOf(
        call(TagServiceService.attachTags, {
          resourceType: "dataset",
          resourceId: datasetId,
          tagIds: [t.id],
        }),
      ),
    ).toBe("validation-error");
  });
});

describe("authorization (principal space permissions)", () => {
  it("create needs TAG_CREATE in the space", async () => {
    expect(await problemOf(tag("m1", spaceId, member({ [spaceId]: ["TAG_READ"] })))).toBe(
      "access-forbidden",
    );
    expect(await problemOf(tag("m1", spaceId, member({ [spaceId]: ["TAG_CREATE"] })))).toBe("ok");
  });

  it("get/update/delete: no TAG_READ is 404; TAG_READ without the permission is 403", async () => {
    const t = await tag("guarded");
    const none = member({});
    const reader = member({ [spaceId]: ["TAG_READ"] });
    expect(await problemOf(call(TagServiceService.getTag, { id: t.id }, none))).toBe(
      "resource-not-found",
    );
    expect(await problemOf(call(TagServiceService.getTag, { id: t.id }, reader))).toBe("ok");
    const upd = { id: t.id, name: "guarded2", clearDescription: false, clearColor: false };
    expect(await problemOf(call(TagServiceService.updateTag, upd, none))).toBe(
      "resource-not-found",
    );
    expect(await problemOf(call(TagServiceService.updateTag, upd, reader))).toBe(
      "access-forbidden",
    );
    expect(
      await problemOf(
        call(TagServiceService.updateTag, upd, member({ [spaceId]: ["TAG_READ", "TAG_UPDATE"] })),
      ),
    ).toBe("ok");
    expect(await problemOf(call(TagServiceService.deleteTag, { id: t.id }, reader))).toBe(
      "access-forbidden",
    );
    expect(
      await problemOf(
        call(
          TagServiceService.deleteTag,
          { id: t.id },
          member({ [spaceId]: ["TAG_READ", "TAG_DELETE"] }),
        ),
      ),
    ).toBe("ok");
  });

  it("the tag list holds only spaces where the caller has TAG_READ", async () => {
    const res = await call(
      TagServiceService.listTags,
      { page: { limit: 100, after: "" }, spaceId: "", spaceName: "", name: "" },
      member({ [otherSpaceId]: ["TAG_READ"] }),
    );
    expect(res.tags.length).toBeGreaterThan(0);
    expect(res.tags.every((t) => t.spaceId === otherSpaceId)).toBe(true);
  });

  it("attach/detach need the resource's UPDATE permission; listing needs its READ", async () => {
    const p = await project("authz-project");
    const t = await tag("authz-tag");
    const req = { resourceType: "project", resourceId: p.id, tagIds: [t.id] };
    const target = { resourceType: "project", resourceId: p.id };
    expect(await problemOf(call(TagServiceService.attachTags, req, member({})))).toBe(
      "resource-not-found",
    );
    expect(
      await problemOf(
        call(TagServiceService.attachTags, req, member({ [spaceId]: ["PROJECT_READ"] })),
      ),
    ).toBe("access-forbidden");
    expect(
      await problemOf(
        call(
          TagServiceService.attachTags,
          req,
          member({ [spaceId]: ["PROJECT_READ", "PROJECT_UPDATE"] }),
        ),
      ),
    ).toBe("ok");
    expect(await problemOf(call(TagServiceService.listResourceTags, target, member({})))).toBe(
      "resource-not-found",
    );
    expect(
      await problemOf(
        call(TagServiceService.listResourceTags, target, member({ [spaceId]: ["PROJECT_READ"] })),
      ),
    ).toBe("ok");
    expect(
      await problemOf(
        call(TagServiceService.detachTags, req, member({ [spaceId]: ["PROJECT_READ"] })),
      ),
    ).toBe("access-forbidden");
  });

  it("projects: create needs PROJECT_CREATE, read PROJECT_READ (else 404), update/delete their permission", async () => {
    const create = (perms: string[]) =>
      problemOf(
        call(
          ProjectServiceService.createProject,
          { spaceId, name: `p-${randomUUID()}` },
          member({ [spaceId]: perms }),
        ),
      );
    expect(await create(["PROJECT_READ"])).toBe("access-forbidden");
    expect(await create(["PROJECT_CREATE"])).toBe("ok");
    const p = await project("perm-project");
    const reader = member({ [spaceId]: ["PROJECT_READ"] });
    expect(await problemOf(call(ProjectServiceService.getProject, { id: p.id }, member({})))).toBe(
      "resource-not-found",
    );
    expect(await problemOf(call(ProjectServiceService.getProject, { id: p.id }, reader))).toBe(
      "ok",
    );
    expect(
      await problemOf(call(ProjectServiceService.updateProject, { id: p.id, name: "n" }, reader)),
    ).toBe("access-forbidden");
    expect(await problemOf(call(ProjectServiceService.deleteProject, { id: p.id }, reader))).toBe(
      "access-forbidden",
    );
    const list = await call(
      ProjectServiceService.listProjects,
      { page: { limit: 100, after: "" }, spaceId: "", spaceName: "", name: "" },
      member({ [otherSpaceId]: ["PROJECT_READ"] }),
    );
    expect(list.projects.every((x) => x.spaceId === otherSpaceId)).toBe(true);
  });
});

describe("events", () => {
  it("every mutation is published on <root>.catalog.<aggregate>.<EventType>", async () => {
    const p = await project("evented");
    const t = await tag("evented");
    await call(TagServiceService.updateTag, {
      id: t.id,
      color: "RED",
      clearDescription: false,
      clearColor: false,
    });
    await call(TagServiceService.attachTags, {
      resourceType: "project",
      resourceId: p.id,
      tagIds: [t.id],
    });
    await call(TagServiceService.detachTags, {
      resourceType: "project",
      resourceId: p.id,
      tagIds: [t.id],
    });
    await call(TagServiceService.deleteTag, { id: t.id });
    await call(ProjectServiceService.updateProject, { id: p.id, name: "evented2" });
    await call(ProjectServiceService.deleteProject, { id: p.id });
    const wanted = [
      "project.ProjectCreated",
      "tag.TagCreated",
      "tag.TagUpdated",
      "resource_tags.TagsAttached",
      "resource_tags.TagsDetached",
      "tag.TagDeleted",
      "project.ProjectUpdated",
      "project.ProjectDeleted",
    ].map((s) => `${env.ARGUS_SUBJECT_ROOT}.catalog.${s}`);
    for (let i = 0; i < 100 && !wanted.every((w) => subjects.includes(w)); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(subjects).toEqual(expect.arrayContaining(wanted));
  });
});
