// The floor the gateway is compared with: GET /v2/spaces/:id as bare Express + pg, one query,
// no authentication beyond "a bearer header is present", no gRPC. Same JSON as the gateway.
import express from "express";
import pg from "pg";
import { selectSpace, publicUuid, spaceJson, type SpaceRow } from "./space.ts";

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
  const id = publicUuid("Space", req.params.id);
  const row = id === null ? undefined : (await pool.query<SpaceRow>(selectSpace([id]))).rows[0];
  if (!row) {
    res.status(404).json({ status: 404 });
    return;
  }
  res.json(spaceJson(row));
});

const server = app.listen(port, "127.0.0.1");
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    void pool.end().finally(() => process.exit(0));
  });
}
