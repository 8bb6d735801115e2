import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";

/** A projection that is one SQL statement over the event's data. */
export const sql =
  <D>(event: string, text: string, values: (d: D) => unknown[]) =>
  (client: PoolClient, d: D) =>
    tracedQuery(client, `project ${event}`, text, values(d));

/** A projection of several statements, run in order. */
export const steps =
  <D>(...parts: ((client: PoolClient, d: D) => Promise<unknown>)[]) =>
  async (client: PoolClient, d: D) => {
    for (const part of parts) await part(client, d);
  };
