import type { JsMsg } from "@nats-io/jetstream";
import type { Pool } from "pg";
import { quoteSchema } from "../schema/schemaName.ts";
import { tracedQuery } from "../schema/tracedQuery.ts";
import { isUuidAnyCase } from "@argus/platform";

/** Keeps a poison message, raw, for a human to inspect and replay. */
export async function recordDeadLetter(
  pool: Pool,
  schema: string,
  consumer: string,
  msg: JsMsg,
  error: string,
): Promise<void> {
  // An undecodable payload still names its event in the Nats-Msg-Id header.
  const msgId = msg.headers?.get("Nats-Msg-Id") ?? "";
  const headers = Object.fromEntries([...(msg.headers ?? [])]);
  await tracedQuery(
    pool,
    "recordDeadLetter",
    `INSERT INTO ${quoteSchema(schema)}.dead_letters
         (consumer, stream, stream_sequence, event_id, subject, deliveries, error, payload, headers)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (consumer, stream, stream_sequence) DO NOTHING`,
    [
      consumer,
      msg.info.stream,
      msg.info.streamSequence,
      isUuidAnyCase(msgId) ? msgId : null,
      msg.subject,
      msg.info.deliveryCount,
      error,
      Buffer.from(msg.data),
      JSON.stringify(headers),
    ],
  );
}
