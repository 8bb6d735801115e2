import { tracedQuery, type Projections } from "@argus/eventstore";
import type { TracingEvent } from "@argus/contracts";

// Spans are written by ingestion and deleted by their command directly (storage/): their
// events only say so. Annotations are projected from theirs, like every annotation.
export const spanProjections: Projections<TracingEvent> = {
  /** One evaluation per span and name: a later one replaces it (a task's run or a client). */
  SpansEvaluated: (client, d) =>
    tracedQuery(
      client,
      "evaluate spans",
      `insert into span_evaluations
         (project_id, span_id, name, score, label, explanation, metadata, updated_at)
       select $1, x.span_id, x.name, x.score, x.label, x.explanation, $3, $4
         from jsonb_to_recordset($2::jsonb)
           as x(span_id text, name text, score double precision, label text, explanation text)
       on conflict (project_id, span_id, name) do update
         set score = excluded.score, label = excluded.label, explanation = excluded.explanation,
             metadata = excluded.metadata, updated_at = excluded.updated_at`,
      [
        d.project_id,
        JSON.stringify(d.evaluations),
        d.task_id ? JSON.stringify({ task_id: d.task_id }) : null,
        d.at,
      ],
    ),
  SpansReceived: async () => {},
  SpansDeleted: async () => {},
  SpansMetadataPatched: async () => {},
  /** Upserts by record and name: a field an annotation leaves out keeps its value. */
  SpansAnnotated: (client, d) =>
    tracedQuery(
      client,
      "annotate spans",
      `insert into span_annotations
         (project_id, granularity, record_id, name, score, label, text, annotator_id,
          annotator_email, updated_at)
       select $1, $2, x.record_id, x.name, x.score, x.label, x.text, $3, $6, $4
         from jsonb_to_recordset($5::jsonb)
           as x(record_id text, name text, score double precision, label text, text text)
       on conflict (project_id, granularity, record_id, name) do update
         set score = coalesce(excluded.score, span_annotations.score),
             label = coalesce(excluded.label, span_annotations.label),
             text = coalesce(excluded.text, span_annotations.text),
             annotator_id = excluded.annotator_id,
             annotator_email = excluded.annotator_email,
             updated_at = excluded.updated_at`,
      [
        d.project_id,
        d.granularity,
        d.annotator_id || null,
        d.at,
        JSON.stringify(d.annotations),
        d.annotator_email || null,
      ],
    ),
};
