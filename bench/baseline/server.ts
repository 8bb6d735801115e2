// The floor the gateway is compared with: GET /v2/spaces/:id as bare Express + pg, one query,
// no authentication beyond "a bearer header is present", no gRPC. Same JSON as the gateway.
import express from "express";
import pg from "pg";

interface SpaceRow {
  id: string;
  organization_id: string;
  name: string;
  description: string;
  is_private: boolean;
  created_at: Date;
}

const SELECT_SPACE =
  "select id, organization_id, name, description, is_private, created_at from identity.spaces where id = $1";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function spaceUuid(id: string): string | null {
  const text = Buffer.from(id, "base64").toString("utf8");
  const uuid = text.startsWith("Space:") ? text.slice("Space:".length) : "";
  return UUID.test(uuid) ? uuid : null;
}

const port = Number(process.env.BASELINE_PORT ?? 0);
// As many connections as identity's pool.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/readyz", (_req, res) => {
  res.end("ok");
});
app.get("/v2/spaces/:id", async (req, res) => {
  if (!/^Bearer \S+$/.test(req.get("authorization") ?? "")) {
    res.status(401).json({ status: 401 });
    return;
  }
  const id = spaceUuid(req.params.id);
  const row = id === null ? undefined : (await pool.query<SpaceRow>(SELECT_SPACE, [id])).rows[0];
  if (!row) {
    res.status(404).json({ status: 404 });
    return;
  }
  res.json({
    id: Buffer.from(`Space:${row.id}`, "utf8").toString("base64"),
    organization_id: Buffer.from(`Organization:${row.organization_id}`, "utf8").toString("base64"),
    name: row.name,
    description: row.description,
    created_at: row.created_at.toISOString(),
    is_private: row.is_private,
  });
});

const server = app.listen(port, "127.0.0.1");
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void pool.end().finally(() => process.exit(0));
  });
}
