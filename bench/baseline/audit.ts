// The least an audit log of every event costs beside the two-hop floor's PATCH (twoHop.ts): the
// stack's identity keeps one row per event of every service (ARCHITECTURE: "the audit log is a
// projection of all services' events"), a bulk write's as the ids it touched, from the bus.
// Here a bare JetStream consumer does only that: it reads the event's few head members, takes
// its data's text as it came (already the ids), inserts one row into a copy of identity's
// `audit_log` (its indexes and lz4 compression included) and acks. No decoding of the data, no
// second serialization, no tracing.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { prepared } from "./prepared.ts";

/** The two-hop floor's JetStream stream (its back makes it) and its audited events' subject. */
export const TWO_HOP_STREAM = { name: "BENCH_TWO_HOP", subjects: ["bench.two_hop.>"] };
export const AUDITED_SUBJECT = "bench.two_hop.audited";
const DURABLE = "bench-two-hop-audit";
const AUDIT_LOG = "bench_floor.audit_log";
/** Every floor event belongs to one made-up account: the row needs one. */
const ACCOUNT = "00000000-0000-4000-8000-000000000000";
/** The envelope's last member: what follows it, less the closing brace, is the data's text. */
const DATA_MEMBER = ',"data":';

/**
 * An audited update's event as the bus carries it: its head (id, stream, type, account, time)
 * and its data, the examples as their ids (`idsText`, `[{"id":…},…]`), last.
 */
export function auditedEventText(stream: string, datasetId: string, idsText: string): string {
  const at = new Date().toISOString();
  const head = JSON.stringify({
    event_id: randomUUID(),
    stream_id: stream,
    type: "BenchFloorUpdated",
    account_id: ACCOUNT,
    recorded_at: at,
  });
  return `${head.slice(0, -1)}${DATA_MEMBER}{"dataset_id":"${datasetId}","at":"${at}","examples":${idsText}}}`;
}

interface Head {
  event_id: string;
  stream_id: string;
  type: string;
  account_id: string;
  recorded_at: string;
}

/** An audited event's head, parsed, and its data's text as it came (`auditedEventText`). */
export function splitAuditedEvent(text: string): { head: Head; dataText: string } {
  const at = text.indexOf(DATA_MEMBER);
  if (at < 0 || !text.endsWith("}")) throw new Error("not an audited event");
  return {
    head: JSON.parse(`${text.slice(0, at)}}`) as Head,
    dataText: text.slice(at + DATA_MEMBER.length, -1),
  };
}

const insertEntry = prepared(
  "audit_insert",
  `insert into ${AUDIT_LOG} (id, event_id, account_id, actor_user_id, actor_service_account_id,
                             api_key_id, client_ip, request_id, operation_name, operation_type,
                             resource_type, resource_id, variables_json, occurred_at)
   values ($1, $2, $3, null, null, null, '', '', $4, 'MUTATION', $5, $6, $7, $8)
   on conflict (event_id) do nothing`,
);

/**
 * Consumes the audited events from `natsUrl` into the audit log's copy on `databaseUrl`, one at
 * a time as they come; `/readyz` on `port` answers once it does. Returns its stop.
 */
export async function consumeAuditLog(
  databaseUrl: string,
  natsUrl: string,
  port: number,
): Promise<() => Promise<void>> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  await pool.query(
    `create schema if not exists bench_floor;
     create table if not exists ${AUDIT_LOG} (like identity.audit_log including all)`,
  );
  const nc = await connect({ servers: natsUrl });
  // The stream is there: the back made it before it answered its readiness probe.
  const jsm = await jetstreamManager(nc);
  await jsm.consumers.add(TWO_HOP_STREAM.name, {
    durable_name: DURABLE,
    filter_subject: AUDITED_SUBJECT,
    ack_policy: AckPolicy.Explicit,
  });
  const messages = await jetstream(nc)
    .consumers.get(TWO_HOP_STREAM.name, DURABLE)
    .then((c) => c.consume());
  const done = (async () => {
    for await (const m of messages) {
      const { head, dataText } = splitAuditedEvent(m.string());
      const dash = head.stream_id.indexOf("-");
      await pool.query(
        insertEntry([
          randomUUID(),
          head.event_id,
          head.account_id,
          head.type,
          head.stream_id.slice(0, dash),
          head.stream_id.slice(dash + 1),
          dataText,
          head.recorded_at,
        ]),
      );
      m.ack();
    }
  })();
  const probe = createServer((_req, res) => void res.end("ok")).listen(port, "127.0.0.1");
  return async () => {
    probe.close();
    messages.stop();
    await done.catch(() => undefined);
    await nc.drain();
    await pool.end();
  };
}
