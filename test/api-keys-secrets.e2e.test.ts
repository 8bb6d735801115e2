import { createHmac } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type Api } from "./support.ts";

// Raw keys, their stored hashes and the pepper must appear nowhere a log reader, an event
// consumer or an API caller could see them: process output, events (which JetStream carries
// and the audit log copies) and every response after the one that returned the key.
let api: Api;
let db: pg.Pool;

beforeAll(async () => {
  api = await startApi({ env: { LOG_LEVEL: "debug" } });
  db = new pg.Pool({ connectionString: api.stack.env.DATABASE_URL });
}, 120_000);
afterAll(async () => {
  await db?.end();
  await api?.stop();
});

it("no raw key, key hash or pepper in logs, events, the audit log or later responses", async () => {
  const pepper = api.stack.env.ARGUS_API_KEY_PEPPER!;
  const rawKeys: string[] = [api.stack.apiKey];
  const later: unknown[] = [];
  const org = (await api.req("GET", "/v2/organizations")).body.organizations[0].id;
  const space = (await api.req("GET", "/v2/spaces")).body.spaces[0].id;

  const user = await api.req("POST", "/v2/api-keys", { body: { key_type: "USER", name: "u" } });
  const service = await api.req("POST", "/v2/api-keys", {
    body: {
      key_type: "SERVICE",
      name: "s",
      organizations: [{ org_id: org, spaces: [{ space_id: space }] }],
    },
  });
  rawKeys.push(user.body.key, service.body.key);
  for (const k of [user, service]) {
    const refreshed = await api.req("POST", `/v2/api-keys/${k.body.id}/refresh`, {
      body: { grace_period_seconds: 60 },
    });
    expect(refreshed.status).toBe(200);
    rawKeys.push(refreshed.body.key);
    // Use every key once (also a failing use), so authentication paths log what they log.
    later.push((await api.req("GET", "/v2/spaces", { key: k.body.key })).body);
    later.push((await api.req("GET", "/v2/spaces", { key: refreshed.body.key })).body);
    later.push((await api.req("GET", "/v2/spaces", { key: `${refreshed.body.key}x` })).body);
    later.push((await api.req("PUT", `/v2/api-keys/${k.body.id}/revoke`)).body);
    later.push((await api.req("GET", "/v2/spaces", { key: refreshed.body.key })).body);
  }
  later.push((await api.req("GET", "/v2/api-keys?status=REVOKED")).body);
  later.push(
    (await api.req("GET", `/v2/api-keys?space_id=${encodeURIComponent(space)}&status=REVOKED`))
      .body,
  );

  // The audit log is written asynchronously from JetStream: wait for the revocations.
  let audit: unknown = null;
  for (let i = 0; i < 100; i++) {
    const res = await api.req("GET", "/v2/audit-logs?operation_name=ApiKeyRevoked");
    if (res.body.logs?.length >= 2) {
      audit = (await api.req("GET", "/v2/audit-logs?limit=100")).body;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(audit).not.toBeNull();
  later.push(audit);

  const events = await db.query(
    "select stream_id, event_type, data::text, metadata::text from identity.events",
  );
  const auditRows = await db.query("select * from identity.audit_log");
  expect(events.rowCount).toBeGreaterThan(0);
  expect(auditRows.rowCount).toBeGreaterThan(0);
  const haystacks: Record<string, string> = {
    logs: Object.values(api.stack.processes)
      .map((p) => p.output())
      .join("\n"),
    events: JSON.stringify(events.rows),
    audit_log: JSON.stringify(auditRows.rows),
    responses: JSON.stringify(later),
  };
  const needles: Record<string, string> = { pepper };
  rawKeys.forEach((raw, i) => {
    const hash = createHmac("sha256", pepper).update(raw).digest();
    needles[`key ${i}`] = raw;
    needles[`key ${i} hash hex`] = hash.toString("hex");
    needles[`key ${i} hash \\x hex`] = `\\x${hash.toString("hex")}`;
    needles[`key ${i} hash base64`] = hash.toString("base64");
    needles[`key ${i} hash base64url`] = hash.toString("base64url");
  });
  const leaks: string[] = [];
  for (const [where, text] of Object.entries(haystacks))
    for (const [what, needle] of Object.entries(needles))
      if (text.includes(needle)) leaks.push(`${what} in ${where}`);
  expect(leaks).toEqual([]);
  // The search is meaningful: the logs are not empty and the responses hold redacted keys.
  expect(haystacks.logs!.length).toBeGreaterThan(100);
  expect(haystacks.responses).toContain("ak-argus-…");
});
