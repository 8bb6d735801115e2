// SQL fragments the span store's queries share.
import { publicIdSql } from "@argus/platform";
import type { Window } from "./spanStore.ts";

export const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The public Annotation shape of one granularity's annotations of a record (jsonb array). */
const annotationsOf = (granularity: "SPAN" | "TRACE", record: string) => `
  (select jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
            'name', a.name, 'score', a.score, 'label', a.label, 'text', a.text,
            'updated_at', ${iso("a.updated_at")},
            'annotator', case when a.annotator_id is null then null else jsonb_strip_nulls(jsonb_build_object(
              'id', ${publicIdSql("User", "a.annotator_id")},
              'email', a.annotator_email)) end))
          order by a.name)
     from span_annotations a
    where a.project_id = s.project_id and a.granularity = '${granularity}'
      and a.record_id = ${record})`;

// The task that wrote an evaluation is stored by its uuid and answered by its public id.
const EVALUATIONS = `
  (select jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
            'name', e.name, 'score', e.score, 'label', e.label, 'explanation', e.explanation,
            'metadata', case when e.metadata ? 'task_id'
              then e.metadata || jsonb_build_object('task_id', ${publicIdSql("Task", "e.metadata ->> 'task_id'")})
              else e.metadata end)) order by e.name)
     from span_evaluations e where e.project_id = s.project_id and e.span_id = s.span_id)`;

export const COLUMNS = `s.trace_id, s.span_id, s.parent_id, s.name, s.kind,
  ${iso("s.start_time")} as start_time, ${iso("s.end_time")} as end_time,
  s.status_code, s.status_message, s.attributes, s.events,
  ${annotationsOf("SPAN", "s.span_id")} as annotations,
  ${annotationsOf("TRACE", "s.trace_id")} as trace_annotations,
  ${EVALUATIONS} as evaluations`;

/** `alias.start_time` within the window, parameters at $from and $from+1. */
export const inWindow = (alias: string, w: Window, from: number) =>
  `${alias}.start_time >= $${from}::timestamptz and ${alias}.start_time ${w.endExclusive ? "<" : "<="} $${from + 1}::timestamptz`;
