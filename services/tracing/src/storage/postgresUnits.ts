import type { Pool } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { foldQueryExpression } from "@argus/filter";
import { COLUMNS, inWindow, iso } from "./sql.ts";
import type { SpanRow, SpanStore, UnitAdmission, UnitHead } from "./spanStore.ts";

const SESSION = "(%.attributes ->> 'session.id')";
const sessionOf = (alias: string) => SESSION.replace("%", alias);
/** A span of `alias` that carries a session (the partial indexes' predicate, then non-empty). */
const inSession = (alias: string) =>
  `${alias}.attributes ? 'session.id' and ${sessionOf(alias)} <> ''`;

const NAMES = (alias: string) => `coalesce((select array_agg(e.name order by e.name)
  from span_evaluations e where e.project_id = ${alias}.project_id and e.span_id = ${alias}.span_id),
  '{}')`;

/**
 * The spans of the unit whose head row is `s`, aliased `f`: its trace's (TRACE) or its
 * session's traces' (SESSION), in the window ($2, $3).
 */
const unitSpansOf = (granularity: "TRACE" | "SESSION", w: Parameters<typeof inWindow>[1]) =>
  granularity === "TRACE"
    ? `f.project_id = s.project_id and f.trace_id = s.trace_id and ${inWindow("f", w, 2)}`
    : `f.project_id = s.project_id and ${inWindow("f", w, 2)} and f.trace_id in
         (select g.trace_id from spans g where g.project_id = s.project_id and ${inSession("g")}
             and ${sessionOf("g")} = ${sessionOf("s")} and ${inWindow("g", w, 2)})`;

/** The SQL of an admission over the unit of head row `s`, its parameters pushed on `params`. */
function admissionSql(admit: UnitAdmission, spansOfUnit: string, params: unknown[]): string {
  return foldQueryExpression(
    admit.expression,
    (id) => {
      const f = admit.filters.get(id)!("f", params.length + 1);
      params.push(...f.params);
      return `exists (select 1 from spans f where ${spansOfUnit} and ${f.sql})`;
    },
    (sql) => `not (${sql})`,
    (op, l, r) => `(${l} ${op} ${r})`,
  );
}

/** The store's reads of traces and sessions as evaluation units (storage/spanStore.ts). */
export function postgresUnits(pool: Pool): Pick<SpanStore, "listUnits" | "sessions" | "unitSpans"> {
  return {
    async listUnits(q) {
      const params: unknown[] = [q.projectId, q.window.start, q.window.end];
      const where = ["s.project_id = $1", inWindow("s", q.window, 2)];
      if (q.granularity === "TRACE") where.push("s.parent_id is null");
      else
        where.push(
          inSession("s"),
          // The session's newest span in the window stands for it: met once in the walk.
          `not exists (select 1 from spans g where g.project_id = s.project_id and ${inSession("g")}
              and ${sessionOf("g")} = ${sessionOf("s")} and ${inWindow("g", q.window, 2)}
              and (g.start_time, g.trace_id, g.span_id) > (s.start_time, s.trace_id, s.span_id))`,
        );
      if (q.after) {
        params.push(q.after.startTime, q.after.traceId, q.after.spanId);
        where.push(
          `(s.start_time, s.trace_id, s.span_id) < ($${params.length - 2}::timestamptz, $${params.length - 1}, $${params.length})`,
        );
      }
      if (q.admit) where.push(admissionSql(q.admit, unitSpansOf(q.granularity, q.window), params));
      params.push(q.limit);
      const res = await tracedQuery<UnitHead>(
        pool,
        q.granularity === "TRACE" ? "traces to evaluate" : "sessions to evaluate",
        `select ${q.granularity === "TRACE" ? "s.trace_id" : sessionOf("s")} as unit_id,
                ${iso("s.start_time")} as start_time, s.trace_id, s.span_id,
                ${q.granularity === "TRACE" ? NAMES("s") : "'{}'::text[]"} as evaluated
           from spans s where ${where.join(" and ")}
          order by s.start_time desc, s.trace_id desc, s.span_id desc limit $${params.length}`,
        params,
      );
      return res.rows;
    },

    async sessions(projectId, sessionIds, window, maxTraces) {
      const res = await tracedQuery<{
        sid: string;
        traces: string[];
        root: string | null;
        evaluated: string[] | null;
      }>(
        pool,
        "traces of sessions",
        `select u.sid, t.traces, r.span_id as root, r.evaluated
           from unnest($2::text[]) as u(sid)
           cross join lateral (select array(
             select g.trace_id from spans g
              where g.project_id = $1 and ${inSession("g")} and ${sessionOf("g")} = u.sid
                and ${inWindow("g", window, 3)}
              group by g.trace_id order by min(g.start_time), g.trace_id limit $5) as traces) t
           left join lateral (
             select s.span_id, ${NAMES("s")} as evaluated from spans s
              where s.project_id = $1 and s.trace_id = any(t.traces) and s.parent_id is null
                and ${inWindow("s", window, 3)}
              order by s.start_time, s.span_id limit 1) r on true`,
        [projectId, [...new Set(sessionIds)], window.start, window.end, maxTraces],
      );
      return new Map(
        res.rows.map((r) => [
          r.sid,
          { traceIds: r.traces, rootSpanId: r.root, evaluated: r.evaluated ?? [] },
        ]),
      );
    },

    async unitSpans(projectId, units, window, perUnit, filters) {
      const params: unknown[] = [
        projectId,
        JSON.stringify(units.map((u) => ({ id: u.id, traces: u.traceIds }))),
        window.start,
        window.end,
        perUnit,
      ];
      const flags = [...filters].map(([id, predicate]) => {
        const f = predicate("s", params.length + 1);
        params.push(...f.params);
        params.push(id);
        return `case when ${f.sql} then $${params.length}::text end`;
      });
      const res = await tracedQuery<SpanRow & { owner: string; matches: string[] }>(
        pool,
        "spans of units",
        `select u.id as owner, x.* from jsonb_to_recordset($2::jsonb) as u(id text, traces jsonb)
           cross join lateral (
             select ${COLUMNS},
                    array_remove(array[${flags.join(", ") || "null"}]::text[], null) as matches
               from spans s
              where s.project_id = $1 and ${inWindow("s", window, 3)}
                and s.trace_id in (select jsonb_array_elements_text(u.traces))
              order by s.start_time, s.span_id limit $5) x`,
        params,
      );
      const byUnit = new Map<string, (SpanRow & { matches: string[] })[]>();
      for (const { owner, ...row } of res.rows)
        byUnit.set(owner, [...(byUnit.get(owner) ?? []), row]);
      return byUnit;
    },
  };
}
