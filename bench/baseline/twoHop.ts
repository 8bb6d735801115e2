// The floor of the shape Argus is built in, for GET /v2/spaces/:id: bare Express in front, one
// gRPC unary call (@grpc/grpc-js, as the gateway's) to a bare service that runs the same one
// query on pg and answers the row. Nothing else: no authentication beyond "a bearer header is
// present", no validation, no tracing, JSON instead of protobuf. `TWO_HOP=front|back`.
import * as grpc from "@grpc/grpc-js";
import express from "express";
import pg from "pg";
import { SELECT_SPACE, spaceJson, spaceUuid, type SpaceRow } from "./space.ts";

const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  deserialize: (b: Buffer) => JSON.parse(b.toString("utf8")) as unknown,
};
const method = {
  path: "/bench.Spaces/Get",
  requestStream: false,
  responseStream: false,
  requestSerialize: json.serialize,
  requestDeserialize: json.deserialize,
  responseSerialize: json.serialize,
  responseDeserialize: json.deserialize,
};
const definition = { get: method } as grpc.ServiceDefinition;

const port = Number(process.env.BASELINE_PORT ?? 0);
const backAddress = `127.0.0.1:${process.env.BACK_PORT ?? 0}`;
let close: () => Promise<unknown>;

if (process.env.TWO_HOP === "back") {
  // As many connections as identity's pool.
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  const server = new grpc.Server();
  server.addService(definition, {
    get: (
      call: grpc.ServerUnaryCall<{ id: string }, unknown>,
      done: grpc.sendUnaryData<unknown>,
    ) => {
      pool.query<SpaceRow>(SELECT_SPACE, [call.request.id]).then(
        (r) => done(null, r.rows[0] ?? null),
        (err: Error) => done(err),
      );
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(backAddress, grpc.ServerCredentials.createInsecure(), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  // The front's readiness probe reaches the back through it; this one answers on its own.
  const probe = express()
    .get("/readyz", (_req, res) => void res.end("ok"))
    .listen(port, "127.0.0.1");
  close = async () => {
    probe.close();
    server.forceShutdown();
    await pool.end();
  };
} else {
  const Client = grpc.makeGenericClientConstructor(definition, "Spaces");
  const client = new Client(
    backAddress,
    grpc.credentials.createInsecure(),
  ) as unknown as grpc.Client & {
    get(
      req: { id: string },
      cb: (err: grpc.ServiceError | null, row: SpaceRow | null) => void,
    ): void;
  };
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/readyz", (_req, res) => {
    res.end("ok");
  });
  app.get("/v2/spaces/:id", (req, res) => {
    if (!/^Bearer \S+$/.test(req.get("authorization") ?? "")) {
      res.status(401).json({ status: 401 });
      return;
    }
    const id = spaceUuid(req.params.id);
    if (id === null) {
      res.status(404).json({ status: 404 });
      return;
    }
    client.get({ id }, (err, row) => {
      if (err) res.status(500).json({ status: 500 });
      else if (!row) res.status(404).json({ status: 404 });
      else res.json(spaceJson({ ...row, created_at: new Date(row.created_at) }));
    });
  });
  const server = app.listen(port, "127.0.0.1");
  close = async () => {
    server.close();
    client.close();
  };
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void close().finally(() => process.exit(0)));
}
