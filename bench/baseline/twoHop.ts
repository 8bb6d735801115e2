// The floor of the shape Argus is built in: bare Express in front, one gRPC unary call
// (@grpc/grpc-js, as the gateway's) to a bare service. For GET /v2/spaces/:id the service runs
// the same one query on pg and answers the row. For PATCH /v2/datasets/:id/examples it appends
// the update's event and updates the rows from it in one statement (patchFloor.ts), answers,
// then publishes the event to JetStream (the least a relay does: no read back). Nothing else:
// no authentication beyond "a bearer header is present", no validation, no tracing; JSON (or,
// for the examples, their text as bytes) instead of protobuf. `TWO_HOP=front|back|audit`; the
// back publishes when NATS_URL is set. Under `/audited/…` the PATCH is also logged, as every
// event of the stack is by identity's audit log: the back publishes the event with its examples
// as their ids (as the stack's bus carries a bulk write) and `audit`, a bare consumer, inserts
// one audit row per event (audit.ts). Under `/projected/…` the PATCH is logged so too, and its
// write is the stack's own statement: the append with the dataset service's projection of the
// update (the column catalog, the dataset's and version's times, the children's detachment, the
// count that refuses an example the version lacks), on its own, committing by itself: no lock,
// BEGIN or COMMIT, no parse, presence check or authorization (projectedWrite).
import * as grpc from "@grpc/grpc-js";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import express from "express";
import pg from "pg";
import { AUDITED_SUBJECT, TWO_HOP_STREAM, auditedEventText, consumeAuditLog } from "./audit.ts";
import { appendAndUpdate, patchEventText } from "./patchFloor.ts";
import { selectSpace, encodePublicId, publicUuid, spaceJson, type SpaceRow } from "./space.ts";
import { withJsonText } from "@argus/eventstore";
import { appendToStream } from "../../packages/eventstore/src/streams/appendToStream.ts";
import { fieldKinds } from "../../services/dataset/src/bulk/columns.ts";
import { exampleProjections } from "../../services/dataset/src/examples/exampleProjection.ts";
import { FLOOR_SCHEMA } from "./floorEvents.ts";

const json = {
  serialize: (v: unknown) => Buffer.from(JSON.stringify(v)),
  deserialize: (b: Buffer) => JSON.parse(b.toString("utf8")) as unknown,
};
const unary = (path: string) => ({
  path,
  requestStream: false,
  responseStream: false,
  requestSerialize: json.serialize,
  requestDeserialize: json.deserialize,
  responseSerialize: json.serialize,
  responseDeserialize: json.deserialize,
});
/**
 * An update's request as bytes, the way a protobuf message carries string fields: the dataset's
 * uuid, the examples' ids as JSON (`[{"id":…},…]`, "" unless the update is audited), their count
 * and their fields' kinds (`fieldKinds`; both "" unless it is projected), then the examples' JSON
 * text, a newline after each of the first four (JSON text holds none raw), which neither side
 * serializes or parses again.
 */
interface UpdateExamples {
  datasetId: string;
  idsText: string;
  count: string;
  kindsText: string;
  examplesText: string;
}
const HEAD_LINES = ["datasetId", "idsText", "count", "kindsText"] as const;
const updateRequest = {
  serialize: (r: UpdateExamples) =>
    Buffer.from(`${HEAD_LINES.map((k) => `${r[k]}\n`).join("")}${r.examplesText}`),
  deserialize: (b: Buffer): UpdateExamples => {
    const text = b.toString("utf8");
    const r = { examplesText: "" } as UpdateExamples;
    let at = 0;
    for (const k of HEAD_LINES) {
      const end = text.indexOf("\n", at);
      r[k] = text.slice(at, end);
      at = end + 1;
    }
    r.examplesText = text.slice(at);
    return r;
  },
};
const definition = {
  get: unary("/bench.Spaces/Get"),
  updateExamples: {
    ...unary("/bench.Datasets/UpdateExamples"),
    requestSerialize: updateRequest.serialize,
    requestDeserialize: updateRequest.deserialize,
  },
} as grpc.ServiceDefinition;
interface UpdatedExamples {
  versionId: string;
  updated: number;
}
const SUBJECT = "bench.two_hop.examples";

/** A JetStream stream of its own on NATS_URL, and a publisher of one event's text to it. */
async function eventPublisher(
  url: string,
): Promise<{ publish(text: string, subject?: string): void; close(): Promise<void> }> {
  const nc = await connect({ servers: url });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add(TWO_HOP_STREAM);
  const js = jetstream(nc);
  const encoder = new TextEncoder();
  return {
    publish: (text, subject = SUBJECT) =>
      void js.publish(subject, encoder.encode(text)).catch((err: Error) => {
        console.error(`publishing failed: ${err.message}`);
      }),
    close: () => nc.drain(),
  };
}

/** Per dataset, its space and latest version, read once (the dataset service keeps them too). */
const places = new Map<string, Promise<{ spaceId: string; versionId: string }>>();

/**
 * The stack's own write of an update, alone (the head of this file): its event appended, the
 * examples' text put in as it came, with the dataset service's projection of it, in one
 * statement committing by itself, to a stream of its own in the floors' event table (which no
 * relay reads). The projection's values take the kinds and count the front sent: the event's
 * data here holds no parsed examples.
 */
async function projectedWrite(
  pool: pg.Pool,
  datasetId: string,
  count: number,
  kindsText: string,
  examplesText: string,
): Promise<UpdatedExamples> {
  let place = places.get(datasetId);
  if (!place) {
    place = pool
      .query<{ space_id: string; version_id: string }>(
        `select d.space_id, (select v.id from dataset_versions v where v.dataset_id = d.id
                              order by v.id desc limit 1) as version_id
           from datasets d where d.id = $1`,
        [datasetId],
      )
      .then(({ rows: [row] }) => {
        if (!row) throw new Error(`no dataset ${datasetId}`);
        return { spaceId: row.space_id, versionId: row.version_id };
      });
    // A lookup that failed is not kept: the next write of the dataset looks again.
    place.catch(() => places.delete(datasetId));
    places.set(datasetId, place);
  }
  const { spaceId, versionId } = await place;
  const head = {
    dataset_id: datasetId,
    space_id: spaceId,
    version_id: versionId,
    at: new Date().toISOString(),
  };
  const open = `${JSON.stringify(head).slice(0, -1)},"examples":`;
  const data = withJsonText(
    { ...head, examples: [] },
    [open, examplesText, "}"],
    open.length + Buffer.byteLength(examplesText) + 1,
  );
  const projection = exampleProjections.DatasetExamplesUpdated;
  if (typeof projection !== "object") throw new Error("DatasetExamplesUpdated is no statement");
  const statement = projection.statement(data);
  // Its values end with the kinds and the count it took from the (here empty) examples.
  if (statement.values.length !== 5)
    throw new Error("the update's projection takes other values than this floor gives it");
  const client = await pool.connect();
  try {
    await appendToStream(
      client,
      FLOOR_SCHEMA,
      `bench_projected-${datasetId}`,
      "any",
      [{ type: "DatasetExamplesUpdated", data, metadata: {} }],
      { maxEventBytes: 2 ** 24 },
      { ...statement, values: [...statement.values.slice(0, 3), kindsText, count] },
    );
  } finally {
    client.release();
  }
  return { versionId, updated: count };
}

const port = Number(process.env.BASELINE_PORT ?? 0);
const backAddress = `127.0.0.1:${process.env.BACK_PORT ?? 0}`;
let close: () => Promise<unknown>;

if (process.env.TWO_HOP === "audit") {
  close = await consumeAuditLog(process.env.DATABASE_URL!, process.env.NATS_URL!, port);
} else if (process.env.TWO_HOP === "back") {
  // As many connections as identity's pool.
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  // The projection names the dataset service's tables as the service does, by its search path.
  const projectedPool = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 20,
    options: "-c search_path=dataset",
  });
  const events = process.env.NATS_URL ? await eventPublisher(process.env.NATS_URL) : undefined;
  const server = new grpc.Server();
  server.addService(definition, {
    get: (
      call: grpc.ServerUnaryCall<{ id: string }, unknown>,
      done: grpc.sendUnaryData<unknown>,
    ) => {
      pool.query<SpaceRow>(selectSpace([call.request.id])).then(
        (r) => done(null, r.rows[0] ?? null),
        (err: Error) => done(err),
      );
    },
    updateExamples: (
      call: grpc.ServerUnaryCall<UpdateExamples, UpdatedExamples>,
      done: grpc.sendUnaryData<UpdatedExamples>,
    ) => {
      const { datasetId, idsText, count, kindsText, examplesText } = call.request;
      const text = patchEventText(datasetId, examplesText);
      const stream = `bench_two_hop-${datasetId}`;
      const written =
        kindsText === ""
          ? appendAndUpdate(pool, stream, datasetId, text)
          : projectedWrite(projectedPool, datasetId, Number(count), kindsText, examplesText);
      written.then(
        (r) => {
          done(null, r);
          if (idsText === "") events?.publish(text);
          else events?.publish(auditedEventText(stream, datasetId, idsText), AUDITED_SUBJECT);
        },
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
    await events?.close();
    await Promise.all([pool.end(), projectedPool.end()]);
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
    updateExamples(
      req: UpdateExamples,
      cb: (err: grpc.ServiceError | null, res: UpdatedExamples) => void,
    ): void;
  };
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.get("/readyz", (_req, res) => {
    res.end("ok");
  });
  const bearer = (req: express.Request) => /^Bearer \S+$/.test(req.get("authorization") ?? "");
  app.get("/v2/spaces/:id", (req, res) => {
    if (!bearer(req)) {
      res.status(401).json({ status: 401 });
      return;
    }
    const id = publicUuid("Space", req.params.id);
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
  // The examples' ids from public to internal, each example's other members its fields; the
  // answer names the examples the service updated, by the ids they were sent under.
  const patchExamples: express.RequestHandler<{ id: string }> = (req, res) => {
    if (!bearer(req)) {
      res.status(401).json({ status: 401 });
      return;
    }
    const datasetId = publicUuid("Dataset", req.params.id);
    const sent = (req.body as { examples?: Record<string, unknown>[] }).examples;
    if (datasetId === null || !Array.isArray(sent)) {
      res.status(404).json({ status: 404 });
      return;
    }
    const examples: { id: string; fields: Record<string, unknown> }[] = [];
    const publicIds: string[] = [];
    for (const { id, ...fields } of sent) {
      const uuid = typeof id === "string" ? publicUuid("DatasetExample", id) : null;
      if (uuid === null) continue;
      examples.push({ id: uuid, fields });
      publicIds.push(id as string);
    }
    const examplesText = JSON.stringify(examples);
    const projected = req.path.startsWith("/projected/");
    const idsText =
      projected || req.path.startsWith("/audited/")
        ? `[${examples.map((e) => `{"id":"${e.id}"}`).join(",")}]`
        : "";
    const [count, kindsText] = projected
      ? [String(examples.length), fieldKinds(examples)]
      : ["", ""];
    client.updateExamples({ datasetId, idsText, count, kindsText, examplesText }, (err, r) => {
      if (err) res.status(500).json({ status: 500 });
      else
        res.json({
          dataset_version_id: encodePublicId("DatasetVersion", r.versionId),
          // Every row of a version is updated here (the floor checks no presence).
          example_ids: r.updated === publicIds.length ? publicIds : [],
        });
    });
  };
  const patchPath = "/v2/datasets/:id/examples";
  const readJson = express.json({ limit: "16mb" });
  app.patch(patchPath, readJson, patchExamples);
  app.patch(`/audited${patchPath}`, readJson, patchExamples);
  app.patch(`/projected${patchPath}`, readJson, patchExamples);
  const server = app.listen(port, "127.0.0.1");
  close = async () => {
    server.close();
    client.close();
  };
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void close().finally(() => process.exit(0)));
}
