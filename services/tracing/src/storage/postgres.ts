import type { Pool, PoolClient } from "pg";
import { to as copyTo } from "pg-copy-streams";
import { tracedQuery } from "@argus/eventstore";
import { checkout, columnBatches } from "@argus/platform";
import type { ExportColumn, SpanPageQuery, SpanRow, SpanStore } from "./spanStore.ts";
import { COLUMNS, inWindow, iso } from "./sql.ts";
import { dayStartIso, isoOfNanos, partitionName } from "./time.ts";
import { postgresUnits } from "./postgresUnits.ts";

// Rows per insert statement: one statement per chunk keeps each parameter array bounded.
const INSERT_CHUNK = 2000;

const PARTITION_LOCK = "select pg_advisory_xact_lock(hashtext('tracing.spans.partitions'))";

/** A span's partition in the attribute-key catalog: the UTC day of its start. */
const dayOf = (column: string) => `((${column}) at time zone 'UTC')::date`;

/**
 * CTEs that add the attribute keys of `rows` (a CTE of written spans: `start_time`,
 * `attributes`) to span_attribute_keys of project $1: one set-based upsert in the statement
 * that writes the spans, so the catalog commits with them. Keys whose kinds the catalog already
 * holds are left out before the upsert: only a new key or kind locks (and rewrites) a catalog
 * row, so concurrent batches of a project wait on each other only when both add one; rows go in
 * key order, so two such batches lock in the same order.
 */
const recordKeys = (rows: string) => `
  seen as (
    select ${dayOf("r.start_time")} as day, k.key, bit_or(span_value_kind(k.value)) as kinds
      from ${rows} r cross join lateral jsonb_each(r.attributes) k
     group by 1, 2),
  recorded as (
    insert into span_attribute_keys (project_id, day, key, kinds)
    select $1, n.day, n.key, n.kinds from seen n
     where not exists (select 1 from span_attribute_keys c
                        where c.project_id = $1 and c.day = n.day and c.key = n.key
                          and c.kinds | n.kinds = c.kinds)
     order by n.day, n.key
    on conflict (project_id, day, key) do update
      set kinds = span_attribute_keys.kinds | excluded.kinds
      where span_attribute_keys.kinds <> span_attribute_keys.kinds | excluded.kinds)`;

// Binary `bigint` and `float8`: 8 bytes a value, sent fixed-width (columnBatches), never text.
const epochNs = (column: string) => `(extract(epoch from ${column}) * 1000000000)::bigint`;

/** The span fields an export reads as 8-byte values rather than text. */
const FIXED_FIELDS: ReadonlySet<string> = new Set(["start_ns", "end_ns", "latency_ms"]);

const EXPORT_FIELDS: Record<Extract<ExportColumn, { field: string }>["field"], string> = {
  span_id: "s.span_id",
  trace_id: "s.trace_id",
  parent_id: "s.parent_id",
  name: "s.name",
  kind: "s.kind",
  start_ns: epochNs("s.start_time"),
  end_ns: epochNs("s.end_time"),
  // Exact microseconds subtracted, then one rounding to a double: the value JavaScript gets
  // dividing the nanoseconds by 1e6.
  latency_ms:
    "((extract(epoch from s.end_time) - extract(epoch from s.start_time)) * 1000)::float8",
  status_code: "s.status_code",
  status_message: "s.status_message",
};

function exportColumnSql(client: PoolClient, c: ExportColumn): string {
  if ("field" in c) return EXPORT_FIELDS[c.field];
  const key = client.escapeLiteral(c.attribute);
  return c.json ? `(s.attributes -> ${key})::text` : `s.attributes ->> ${key}`;
}

/**
 * A parameterized statement with its parameters written in as literals, for COPY, which takes
 * none. Every `$n` of the statements given here is a placeholder (filters bind every part of
 * a name and value), and each value becomes one escaped literal: text, an array of text, or a
 * finite number.
 */
export function withLiterals(client: PoolClient, sql: string, params: readonly unknown[]): string {
  const literal = (v: unknown): string => {
    if (typeof v === "string") return client.escapeLiteral(v);
    // In parentheses: a negative number after an operator must not read as a comment (`--`).
    if (typeof v === "number" && Number.isFinite(v)) return `(${String(v)})`;
    if (Array.isArray(v) && v.every((e) => typeof e === "string"))
      return client.escapeLiteral(
        `{${v.map((e) => `"${e.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`,
      );
    throw new Error(`a parameter of type ${typeof v} cannot be written as a literal`);
  };
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (!(i >= 0 && i < params.length)) throw new Error(`no parameter $${n}`);
    return literal(params[i]);
  });
}

export function postgresSpanStore(pool: Pool): SpanStore {
  // Days whose partition this process has seen: checked once each, not per batch.
  const ready = new Set<number>();

  async function page(q: SpanPageQuery, roots: boolean): Promise<SpanRow[]> {
    const params: unknown[] = [q.projectId, q.window.start, q.window.end];
    const where = ["s.project_id = $1", inWindow("s", q.window, 2)];
    if (roots) where.push("s.parent_id is null");
    if (q.after) {
      params.push(q.after.startTime, q.after.traceId, q.after.spanId);
      where.push(
        `(s.start_time, s.trace_id, s.span_id) < ($${params.length - 2}::timestamptz, $${params.length - 1}, $${params.length})`,
      );
    }
    if (q.filter) {
      const alias = roots ? "f" : "s";
      const f = q.filter(alias, params.length + 1);
      params.push(...f.params);
      where.push(
        roots
          ? `exists (select 1 from spans f where f.project_id = s.project_id and f.trace_id = s.trace_id
                        and ${inWindow("f", q.window, 2)} and ${f.sql})`
          : f.sql,
      );
    }
    params.push(q.limit);
    const res = await tracedQuery<SpanRow>(
      pool,
      roots ? "list root spans" : "list spans",
      `select ${COLUMNS} from spans s where ${where.join(" and ")}
        order by s.start_time desc, s.trace_id desc, s.span_id desc limit $${params.length}`,
      params,
    );
    return res.rows;
  }

  /** The WHERE of a project's spans in a window that match a filter, with its parameters. */
  function matching(q: Parameters<SpanStore["countSpans"]>[0]) {
    const params: unknown[] = [q.projectId, q.window.start, q.window.end];
    const where = ["s.project_id = $1", inWindow("s", q.window, 2)];
    if (q.filter) {
      const f = q.filter("s", params.length + 1);
      params.push(...f.params);
      where.push(f.sql);
    }
    return { where: where.join(" and "), params };
  }

  return {
    async prepare(days, recheck = false) {
      if (recheck) for (const day of days) ready.delete(day);
      const missing = [...new Set(days)].filter((d) => !ready.has(d)).sort((a, b) => a - b);
      if (missing.length === 0) return;
      const client = await checkout(pool);
      try {
        await client.query("begin");
        // Replicas creating the same day's partition wait for each other instead of failing.
        await tracedQuery(client, "lock span partitions", PARTITION_LOCK);
        for (const day of missing)
          await tracedQuery(
            client,
            "create span partition",
            `create table if not exists ${partitionName(day)} partition of spans
               for values from ('${dayStartIso(day)}') to ('${dayStartIso(day + 1)}')`,
          );
        await client.query("commit");
        for (const day of missing) ready.add(day);
      } catch (err) {
        await client.query("rollback").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },

    async insert(tx, projectId, spans) {
      let count = 0;
      let minStart = "";
      let maxStart = "";
      for (let i = 0; i < spans.length; i += INSERT_CHUNK) {
        const chunk = spans.slice(i, i + INSERT_CHUNK);
        const res = await tracedQuery<{ min: string | null; max: string | null; n: string }>(
          tx,
          "insert spans",
          // One JSON document a chunk: JSON.stringify is native, where a text[] parameter per
          // column is escaped element by element in JavaScript (half the ingestion CPU).
          `with added as (
             insert into spans (project_id, start_time, trace_id, span_id, parent_id, name, kind,
                                end_time, status_code, status_message, attributes, events)
             select $1, t.s, t.t, t.i, t.p, t.n, t.k, t.e, t.c, t.m, t.a, t.v
               from jsonb_to_recordset($2::jsonb)
                 as t(s timestamptz, t text, i text, p text, n text, k text, e timestamptz,
                      c text, m text, a jsonb, v jsonb)
             on conflict do nothing
             returning start_time, attributes),
           ${recordKeys("added")}
           select ${iso("min(start_time)")} as min, ${iso("max(start_time)")} as max,
                  count(*) as n from added`,
          [
            projectId,
            JSON.stringify(
              chunk.map((s) => ({
                s: isoOfNanos(s.startTimeUnixNano),
                t: s.traceId,
                i: s.spanId,
                p: s.parentId || null,
                n: s.name,
                k: s.kind,
                e: isoOfNanos(s.endTimeUnixNano),
                c: s.statusCode,
                m: s.statusMessage,
                a: s.attributes,
                v: s.events.map((e) => ({
                  name: e.name,
                  timestamp: isoOfNanos(e.timeUnixNano),
                  attributes: e.attributes,
                })),
              })),
            ),
          ],
        );
        const r = res.rows[0]!;
        count += Number(r.n);
        if (r.min !== null && (minStart === "" || r.min < minStart)) minStart = r.min;
        if (r.max !== null && r.max > maxStart) maxStart = r.max;
      }
      return { count, minStart, maxStart };
    },

    listSpans: (q) => page(q, false),
    listRoots: (q) => page(q, true),

    async *exportSpans(q, limits) {
      const client = await checkout(pool);
      let finished = false;
      try {
        const m = matching(q);
        const select = `select ${q.columns.map((c) => exportColumnSql(client, c)).join(", ")}
                          from spans s where ${m.where}
                         order by s.start_time desc, s.trace_id desc, s.span_id desc`;
        // One COPY in binary: a text value's bytes go into the batch's column as they came,
        // never a string per value, and the socket is read only as fast as batches are taken.
        const copy = client.query(
          copyTo(`copy (${withLiterals(client, select, m.params)}) to stdout (format binary)`),
        );
        const fixed = new Set(
          q.columns.flatMap((c, i) => ("field" in c && FIXED_FIELDS.has(c.field) ? [i] : [])),
        );
        yield* columnBatches(copy, q.columns.length, limits, fixed);
        finished = true;
      } finally {
        // An export left early: the connection goes (Postgres stops the COPY when it cannot
        // write), rather than reading the rest.
        client.release(finished ? undefined : new Error("span export stopped"));
      }
    },

    async countSpans(q) {
      const m = matching(q);
      const res = await tracedQuery<{ n: string }>(
        pool,
        "count spans",
        `select count(*) as n from spans s where ${m.where}`,
        m.params,
      );
      return Number(res.rows[0]!.n);
    },

    async attributeKeys(q) {
      // The catalog's days the window touches (its end day only if the end is inside it).
      const last = q.window.endExclusive
        ? "$3::timestamptz - interval '1 microsecond'"
        : "$3::timestamptz";
      const res = await tracedQuery<{ key: string; kinds: number }>(
        pool,
        "span attribute keys",
        `select key, bit_or(kinds)::integer as kinds from span_attribute_keys
          where project_id = $1 and day between ${dayOf("$2::timestamptz")} and ${dayOf(last)}
          group by key order by key`,
        [q.projectId, q.window.start, q.window.end],
      );
      return res.rows;
    },
    ...postgresUnits(pool),

    async spansOfTraces(projectId, traceIds, window, perTrace) {
      const res = await tracedQuery<SpanRow & { owner: string }>(
        pool,
        "spans of traces",
        `select t.trace_id as owner, x.* from unnest($2::text[]) as t(trace_id)
           cross join lateral (
             select ${COLUMNS} from spans s
              where s.project_id = $1 and s.trace_id = t.trace_id and ${inWindow("s", window, 3)}
              order by s.start_time, s.span_id limit $5) x`,
        [projectId, [...new Set(traceIds)], window.start, window.end, perTrace],
      );
      const byTrace = new Map<string, SpanRow[]>();
      for (const { owner, ...row } of res.rows) {
        const list = byTrace.get(owner) ?? [];
        list.push(row);
        byTrace.set(owner, list);
      }
      return byTrace;
    },

    async present(client, projectId, kind, ids, window) {
      const column = kind === "span" ? "span_id" : "trace_id";
      const res = await tracedQuery<{ id: string }>(
        client,
        `present ${kind}s`,
        `select distinct s.${column} as id from spans s
          where s.project_id = $1 and s.${column} = any($2::text[]) and ${inWindow("s", window, 3)}`,
        [projectId, ids, window.start, window.end],
      );
      return new Set(res.rows.map((r) => r.id));
    },

    async tracesOfRoots(client, projectId, spanIds, window) {
      const res = await tracedQuery<{ span_id: string; trace_id: string }>(
        client,
        "roots of traces",
        `select s.span_id, s.trace_id from spans s
          where s.project_id = $1 and s.span_id = any($2::text[]) and s.parent_id is null
            and ${inWindow("s", window, 3)}`,
        [projectId, spanIds, window.start, window.end],
      );
      return new Map(res.rows.map((r) => [r.span_id, r.trace_id]));
    },

    async metadataOf(tx, projectId, spanIds, window) {
      const res = await tracedQuery<{
        trace_id: string;
        span_id: string;
        start_time: string;
        metadata: unknown;
      }>(
        tx,
        "span metadata",
        `select s.trace_id, s.span_id, s.start_time::text as start_time,
                s.attributes -> 'metadata' as metadata
           from spans s where s.project_id = $1 and s.span_id = any($2::text[])
            and ${inWindow("s", window, 3)}
          order by s.start_time, s.trace_id
            for update`,
        [projectId, spanIds, window.start, window.end],
      );
      return res.rows.map((r) => ({
        traceId: r.trace_id,
        spanId: r.span_id,
        startTime: r.start_time,
        metadata: r.metadata ?? undefined,
      }));
    },

    async setMetadata(tx, projectId, rows) {
      if (rows.length === 0) return;
      await tracedQuery(
        tx,
        "set span metadata",
        // The new `metadata` values go to the attribute-key catalog with the rows.
        `with written as (
           update spans s set attributes = jsonb_set(s.attributes, '{metadata}', x.m)
             from jsonb_to_recordset($2::jsonb) as x(t text, i text, s text, m jsonb)
            where s.project_id = $1 and s.trace_id = x.t and s.span_id = x.i
              and s.start_time = x.s::timestamptz
           returning s.start_time, jsonb_build_object('metadata', x.m) as attributes),
         ${recordKeys("written")}
         select 1`,
        [
          projectId,
          JSON.stringify(
            rows.map((r) => ({ t: r.traceId, i: r.spanId, s: r.startTime, m: r.metadata })),
          ),
        ],
      );
    },

    async delete(tx, projectId, spanIds, window) {
      const res = await tracedQuery<{ span_id: string }>(
        tx,
        "delete spans",
        `delete from spans s where s.project_id = $1 and s.span_id = any($2::text[])
            and ${inWindow("s", window, 3)}
         returning s.span_id`,
        [projectId, spanIds, window.start, window.end],
      );
      const deleted = [...new Set(res.rows.map((r) => r.span_id))];
      if (deleted.length > 0) {
        await tracedQuery(
          tx,
          "delete span annotations",
          `delete from span_annotations where project_id = $1 and granularity = 'SPAN'
              and record_id = any($2::text[])`,
          [projectId, deleted],
        );
        await tracedQuery(
          tx,
          "delete span evaluations",
          "delete from span_evaluations where project_id = $1 and span_id = any($2::text[])",
          [projectId, deleted],
        );
      }
      return deleted;
    },

    async dropProject(tx, projectId) {
      for (const table of [
        "spans",
        "span_attribute_keys",
        "span_annotations",
        "span_evaluations",
        "projects",
      ])
        await tracedQuery(
          tx,
          `drop project's ${table}`,
          `delete from ${table} where ${table === "projects" ? "id" : "project_id"} = $1`,
          [projectId],
        );
    },

    async dropDaysBefore(day) {
      const client: PoolClient = await checkout(pool);
      try {
        await client.query("begin");
        await tracedQuery(client, "lock span partitions", PARTITION_LOCK);
        const res = await tracedQuery<{ name: string }>(
          client,
          "span partitions",
          `select c.relname as name from pg_inherits i
             join pg_class c on c.oid = i.inhrelid
             join pg_class p on p.oid = i.inhparent
            where p.relname = 'spans' and p.relnamespace = current_schema()::regnamespace
              and c.relname ~ '^spans_[0-9]{8}$' and c.relname < $1`,
          [partitionName(day)],
        );
        for (const { name } of res.rows)
          await tracedQuery(client, "drop span partition", `drop table ${name}`);
        await tracedQuery(
          client,
          "drop span attribute keys",
          "delete from span_attribute_keys where day < $1::date",
          [dayStartIso(day).slice(0, 10)],
        );
        await client.query("commit");
        // Forgotten as ready, so a later batch of such a day (a longer retention elsewhere, a
        // manual drop) creates its partition again instead of failing on a missing one.
        for (const d of ready) if (d < day) ready.delete(d);
        return res.rows.length;
      } catch (err) {
        await client.query("rollback").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
}
