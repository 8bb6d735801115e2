/**
 * Writers racing on one new project's spans through every public path that writes them: the
 * SDK's spans.log (`POST /v1/pandas_arrow`, with joined evaluations) creating the project and
 * its spans, while evaluations (Flight DoPut writeSpanEvaluationRequest and its force_http twin
 * on `/v1/pandas_arrow`), annotations (Flight writeSpanAnnotationRequest and REST annotate) and
 * metadata patches (Flight writeSpanAttributesMetadataRequest) update the same spans. Every
 * answer is a success or a documented refusal (the project or a span not there yet), never a
 * 5xx; the end state is one of the histories the answers allow.
 */
import * as grpc from "@grpc/grpc-js";
import {
  Float64,
  Int64,
  Table,
  Utf8,
  tableToIPC,
  vectorFromArray,
  type Vector,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueName } from "@argus/testkit";
import {
  FlightDescriptor_DescriptorType,
  FlightServiceClient,
  type FlightData,
  type PutResult,
} from "@argus/proto/flight";
import {
  WriteSpanAnnotationResponse,
  WriteSpanAttributesMetadataResponse,
  WriteSpanEvaluationResponse,
} from "@argus/proto/public/flight";
import { recordBatchFrame, schemaFrame } from "../services/gateway/src/flight/ipc.ts";
import { arizeSchema, projectIdOf, recentWindow } from "./spans-support.ts";
import { expectProblem, startApi, type Api, type Json } from "./support.ts";

let api: Api;
let spaceId: string;
let flight: FlightServiceClient;
const EVAL = "quality";
const CONFIG = uniqueName("verdict").replace(/-/g, "_");

/** Writers of each kind; each makes ROUNDS writes that reach every span it names. */
const LOGGERS = 4;
const WRITERS = { flightEvals: 3, httpEvals: 2, flightAnnotations: 2, restAnnotations: 2 };
const PATCHERS = 4;
const PATCH_BURST = 3;
const ROUNDS = 6;
/** How often a writer tries at most, while the project or its spans are not there yet. */
const TRIES = 1000;

beforeAll(async () => {
  api = await startApi();
  spaceId = (await api.ok("GET", "/v2/spaces")).spaces[0].id as string;
  await api.ok("POST", "/v2/annotation-configs", {
    name: CONFIG,
    space_id: spaceId,
    annotation_config_type: "CATEGORICAL",
    values: Array.from({ length: 10 }, (_, w) => ({ label: `w${w}` })),
  });
  flight = new FlightServiceClient(api.stack.flightAddress, grpc.credentials.createInsecure());
});
afterAll(async () => {
  flight?.close();
  await api?.stop();
});

const text = (values: (string | null)[]) => vectorFromArray(values, new Utf8());
const floats = (values: (number | null)[]) => vectorFromArray(values, new Float64());

/** An Arrow upload to `POST /v1/pandas_arrow`, as the SDK posts it. */
async function pandasArrow(project: string, columns: Record<string, Vector>) {
  const table = new Table(columns);
  table.schema.metadata.set("arize-schema", arizeSchema(project));
  const res = await fetch(`${api.stack.baseUrl}/v1/pandas_arrow`, {
    method: "POST",
    headers: { authorization: api.stack.apiKey, "arize-space-id": spaceId },
    body: tableToIPC(table, "stream"),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

type FlightAnswer = { code: grpc.status; details: string; appMetadata?: Uint8Array };

/** A Flight DoPut of `columns` (one batch) under `request`, as pyarrow sends it. */
function doPut(request: Record<string, unknown>, columns: Record<string, Vector>) {
  const table = new Table(columns);
  const frame = (f: { header: Uint8Array; body: Uint8Array[] }) => ({
    dataHeader: Buffer.from(f.header),
    dataBody: Buffer.concat(f.body),
    appMetadata: Buffer.alloc(0),
  });
  const md = new grpc.Metadata();
  md.set("auth-token-bin", Buffer.from(api.stack.apiKey));
  return new Promise<FlightAnswer>((resolve) => {
    const call = flight.doPut(md);
    let appMetadata: Uint8Array | undefined;
    call.on("data", (r: PutResult) => (appMetadata ??= r.appMetadata));
    call.on("error", (err: grpc.ServiceError) => resolve({ code: err.code, details: err.details }));
    call.on("end", () => resolve({ code: grpc.status.OK, details: "", appMetadata }));
    const first: FlightData = {
      flightDescriptor: {
        type: FlightDescriptor_DescriptorType.CMD,
        cmd: Buffer.from(JSON.stringify(request)),
        path: [],
      },
      ...frame(schemaFrame(table.schema)),
    };
    call.write(first);
    for (const batch of table.batches) call.write(frame(recordBatchFrame(batch)));
    call.end();
  });
}

/** The span ids of the test: 16 hex digits, `group` and `i` readable in them. */
const spanId = (group: number, i: number) =>
  `${group.toString(16).padStart(8, "0")}${i.toString(16).padStart(8, "0")}`;
/** Spans every logger logs, identically (a retried upload): SHARED. Logger k's own: OWN(k). */
const SHARED = Array.from({ length: 4 }, (_, i) => spanId(0xa, i));
const own = (k: number) => Array.from({ length: 4 }, (_, i) => spanId(0xb0 + k, i));
const TRACE = "c".repeat(32);

/** The values one write of an evaluation or annotation gave, and the spans it reached. */
interface Written {
  spans: Set<string>;
  values: Json;
}

/**
 * Repeats `write` until ROUNDS of its writes reached every span they name (those before, while
 * the project or a span is not there yet, do not count); every answer is kept, for checking.
 * `answered` is called once the first write is answered.
 */
async function rounds<A>(
  write: (round: number) => Promise<{ answer: A; all: boolean }>,
  answers: A[],
  answered: () => void,
): Promise<void> {
  let round = 0;
  for (let tries = 0; round < ROUNDS && tries < TRIES; tries++) {
    let written: { answer: A; all: boolean };
    try {
      written = await write(round);
    } finally {
      if (tries === 0) answered();
    }
    answers.push(written.answer);
    if (written.all) round++;
    else await new Promise((r) => setTimeout(r, 10));
  }
  if (round < ROUNDS) throw new Error(`a writer reached its spans ${round} times in ${TRIES}`);
}

describe("writers racing on one new project's spans", () => {
  it("logs, evaluations, annotations and metadata patches at once: never a 5xx, one of the valid histories", async () => {
    const project = uniqueName("span-races");
    const start = BigInt(Date.now() - 60_000) * 1_000_000n;
    const evaluations: Written[] = [];
    const annotations: Written[] = [];
    const logged = new Set<string>();
    const http: { status: number; headers: Headers; body: Json }[] = [];
    const rpc: FlightAnswer[] = [];
    const matched = (ids: string[], unmatched: string[]) =>
      new Set(ids.filter((id) => !unmatched.includes(id)));
    // Evaluations and annotations name the shared spans and logger 0's own (logged maybe later).
    const targets = [...SHARED, ...own(0)];

    // The logs start once every update was answered once (refused: there is no project yet),
    // so they race updates already trying again.
    let unanswered = Object.values(WRITERS).reduce((n, w) => n + w, 0) + PATCHERS;
    let allAnswered!: () => void;
    const updatesStarted = new Promise<void>((resolve) => (allAnswered = resolve));
    const answered = () => {
      if (--unanswered === 0) allAnswered();
    };
    const loggers = Array.from({ length: LOGGERS }, async (_, k) => {
      await updatesStarted;
      const ids = [...SHARED, ...own(k)];
      const values = { label: `log${k}`, score: 100 + k, explanation: `logged by ${k}` };
      const res = await pandasArrow(project, {
        "context.span_id": text(ids),
        "context.trace_id": text(ids.map(() => TRACE)),
        name: text(ids.map((id) => `span ${id}`)),
        start_time: vectorFromArray(
          ids.map((_, i) => start + BigInt(i) * 1000n),
          new Int64(),
        ),
        end_time: vectorFromArray(
          ids.map((_, i) => start + BigInt(i) * 1000n + 500n),
          new Int64(),
        ),
        // Joined evaluations (spans.log's evals_dataframe) on the shared spans only.
        [`eval.${EVAL}.label`]: text(ids.map((id) => (SHARED.includes(id) ? values.label : null))),
        [`eval.${EVAL}.score`]: floats(
          ids.map((id) => (SHARED.includes(id) ? values.score : null)),
        ),
        [`eval.${EVAL}.explanation`]: text(
          ids.map((id) => (SHARED.includes(id) ? values.explanation : null)),
        ),
      });
      http.push(res);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({
        spans_logged: ids.length,
        evaluations: { records_updated: SHARED.length, unmatched_ids: [] },
      });
      for (const id of ids) logged.add(id);
      evaluations.push({ spans: new Set(SHARED), values });
    });

    const evalValues = (writer: string, w: number, round: number) => ({
      label: `${writer}.r${round}`,
      score: w * 10 + round,
      explanation: `${writer} round ${round}`,
    });
    /** The columns of one write of `values` to every target, `prefix.<field>` a value. */
    const columnsOf = (prefix: string, values: Json) => ({
      "context.span_id": text(targets),
      ...Object.fromEntries(
        Object.entries(values).map(([field, v]) => [
          `${prefix}.${field}`,
          typeof v === "number" ? floats(targets.map(() => v)) : text(targets.map(() => `${v}`)),
        ]),
      ),
    });
    /**
     * Flight writers of evaluations or annotations to every target; the answer's unmatched ids
     * (both answers have them) say which spans a write reached.
     */
    const flightWriters = (
      count: number,
      request: string,
      decode: (answer: Uint8Array) => { unmatchedIds: string[] },
      valuesOf: (w: number, round: number) => Json,
      prefix: string,
      into: Written[],
    ) =>
      Array.from({ length: count }, (_, w) =>
        rounds(
          async (round) => {
            const values = valuesOf(w, round);
            const answer = await doPut(
              { [request]: { spaceId, externalModelId: project } },
              columnsOf(prefix, values),
            );
            if (answer.code !== grpc.status.OK) return { answer, all: false };
            const { unmatchedIds } = decode(answer.appMetadata!);
            into.push({ spans: matched(targets, unmatchedIds), values });
            return { answer, all: unmatchedIds.length === 0 };
          },
          rpc,
          answered,
        ),
      );
    const flightEvals = flightWriters(
      WRITERS.flightEvals,
      "writeSpanEvaluationRequest",
      (b) => WriteSpanEvaluationResponse.decode(b),
      (w, round) => evalValues(`flight${w}`, w, round),
      `eval.${EVAL}`,
      evaluations,
    );
    const httpEvals = Array.from({ length: WRITERS.httpEvals }, (_, w) =>
      rounds(
        async (round) => {
          const values = evalValues(`http${w}`, 5 + w, round);
          const res = await pandasArrow(project, columnsOf(`eval.${EVAL}`, values));
          if (res.status !== 200) return { answer: res, all: false };
          const unmatched = res.body.unmatched_ids as string[];
          evaluations.push({ spans: matched(targets, unmatched), values });
          return { answer: res, all: unmatched.length === 0 };
        },
        http,
        answered,
      ),
    );

    const annotationValues = (w: number, round: number) => ({
      label: `w${w}`,
      score: w * 10 + round,
      text: `annotator ${w} round ${round}`,
    });
    const flightAnnotations = flightWriters(
      WRITERS.flightAnnotations,
      "writeSpanAnnotationRequest",
      (b) => WriteSpanAnnotationResponse.decode(b),
      annotationValues,
      `annotation.${CONFIG}`,
      annotations,
    );
    // REST annotate names the project by id and refuses a span that is not there (404).
    const restAnnotations = Array.from({ length: WRITERS.restAnnotations }, (_, i) => {
      const w = WRITERS.flightAnnotations + i;
      return rounds(
        async (round) => {
          const values = annotationValues(w, round);
          const found = await api.req(
            "GET",
            `/v2/projects?${new URLSearchParams({ space_id: spaceId, name: project })}`,
          );
          const projectId = (found.body.projects as Json[] | undefined)?.[0]?.id as string;
          if (!projectId) return { answer: found, all: false };
          const res = await api.req("POST", "/v2/spans/annotate", {
            body: {
              project_id: projectId,
              annotations: SHARED.map((id) => ({
                record_id: id,
                values: [{ name: CONFIG, ...values }],
              })),
            },
          });
          if (res.status !== 202) return { answer: res, all: false };
          annotations.push({ spans: new Set(SHARED), values });
          return { answer: res, all: true };
        },
        http,
        answered,
      );
    });

    // Patches name logger 1's own spans: logged once, so a patch once written stays. Each
    // patcher sends its key in bursts of PATCH_BURST writes at once, so that read-modify-writes
    // of one span's metadata overlap.
    const patched = own(1);
    const patchedWith = new Map<string, Set<number>>();
    const patchers = Array.from({ length: PATCHERS }, (_, m) =>
      rounds(
        async (round) => {
          const burst = await Promise.all(
            Array.from({ length: PATCH_BURST }, async (_, j) => {
              const value = round * PATCH_BURST + j;
              const answer = await doPut(
                { writeSpanAttributesMetadataRequest: { spaceId, externalModelId: project } },
                {
                  "context.span_id": text(patched),
                  patch_document: text(patched.map(() => JSON.stringify({ [`p${m}`]: value }))),
                },
              );
              rpc.push(answer);
              if (answer.code !== grpc.status.OK) return false;
              const res = WriteSpanAttributesMetadataResponse.decode(answer.appMetadata!);
              const spans = matched(
                patched,
                res.errors.map((e) => e.spanId),
              );
              expect(Number(res.spansUpdated)).toBe(spans.size);
              for (const id of spans) {
                const key = `${id}/p${m}`;
                patchedWith.set(key, (patchedWith.get(key) ?? new Set()).add(value));
              }
              return spans.size === patched.length;
            }),
          );
          return { answer: burst, all: burst.every(Boolean) };
        },
        [],
        answered,
      ),
    );

    const results = await Promise.allSettled([
      ...loggers,
      ...flightEvals,
      ...httpEvals,
      ...flightAnnotations,
      ...restAnnotations,
      ...patchers,
    ]);
    for (const r of results) if (r.status === "rejected") throw r.reason;

    // Every answer: a success, or the documented refusal of a project or span not there yet.
    for (const res of http) {
      if (res.status < 300) continue;
      expectProblem(res, 404, "resource-not-found");
    }
    for (const a of rpc)
      expect([grpc.status.OK, grpc.status.NOT_FOUND], `${a.code} ${a.details}`).toContain(a.code);
    // Updates came before the project: the test raced its creation.
    expect(rpc.filter((a) => a.code === grpc.status.NOT_FOUND).length).toBeGreaterThanOrEqual(
      WRITERS.flightEvals + WRITERS.flightAnnotations + PATCHERS,
    );

    // The project exists once, with every logged span once.
    const listed = await api.ok(
      "GET",
      `/v2/projects?${new URLSearchParams({ space_id: spaceId, name: project })}`,
    );
    expect((listed.projects as Json[]).map((p) => p.name)).toEqual([project]);
    const projectId = await projectIdOf(api.stack, spaceId, project);
    const page = await api.ok("POST", "/v2/spans?limit=100", {
      project_id: projectId,
      ...recentWindow(),
    });
    const spans = page.spans as Json[];
    const ids = spans.map((s) => s.context.span_id as string);
    expect(ids.toSorted()).toEqual([...logged].toSorted());

    const byId = new Map(spans.map((s) => [s.context.span_id as string, s]));
    for (const id of targets) {
      const span = byId.get(id)!;
      // The evaluation is one write's, whole: never fields of two writes.
      const evaluation = (span.evaluations as Json[]).find((e) => e.name === EVAL);
      const evaluatedBy = evaluations.filter((e) => e.spans.has(id));
      expect(evaluatedBy.length, id).toBeGreaterThan(0);
      expect(
        evaluatedBy.map((e) => ({ name: EVAL, ...e.values })),
        id,
      ).toContainEqual(evaluation);
      const annotation = (span.annotations as Json[]).find((a) => a.name === CONFIG);
      const annotatedBy = annotations.filter((a) => a.spans.has(id));
      expect(annotatedBy.length, id).toBeGreaterThan(0);
      expect(
        annotatedBy.map((a) => a.values),
        id,
      ).toContainEqual({
        label: annotation?.label,
        score: annotation?.score,
        text: annotation?.text,
      });
    }
    // Every patcher's key is in the metadata, with a value one of its writes reported written
    // to the span: no patch lost another's key.
    for (const id of patched) {
      const metadata = JSON.parse((byId.get(id)!.attributes.metadata as string) ?? "{}") as Json;
      expect(Object.keys(metadata).toSorted(), id).toEqual(
        Array.from({ length: PATCHERS }, (_, m) => `p${m}`),
      );
      for (const [key, value] of Object.entries(metadata))
        expect([...(patchedWith.get(`${id}/${key}`) ?? [])], `${id} ${key}`).toContain(value);
    }
  });
});
