import type { PoolClient } from "pg";
import { tracedQuery } from "@argus/eventstore";
import { publicIdSql } from "@argus/platform";

/**
 * A record's annotations as one JSON array text (null when it has none), in the public API's
 * Annotation shape, the annotator by its public id.
 */
export const annotationsOf = (kind: "example" | "run", recordId: string) => `
  (select jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
            'name', a.name, 'score', a.score, 'label', a.label, 'text', a.text,
            'updated_at', a.updated_at,
            'annotator', case when a.annotator_id is null then null else jsonb_strip_nulls(jsonb_build_object(
              'id', ${publicIdSql("User", "a.annotator_id")},
              'email', a.annotator_email)) end))
          order by a.name)::text
     from annotations a where a.record_kind = '${kind}' and a.record_id = ${recordId})`;

/** Upserts by record and name: a field an annotation leaves out keeps its value. */
export const upsertAnnotations = (
  client: PoolClient,
  kind: "example" | "run",
  parentId: string,
  d: { annotator_id: string; annotator_email?: string; annotations: unknown[]; at: string },
) =>
  tracedQuery(
    client,
    `annotate ${kind}s`,
    `insert into annotations
       (record_kind, record_id, parent_id, name, score, label, text, annotator_id, annotator_email,
        updated_at)
     select $1, x.record_id, $2, x.name, x.score, x.label, x.text, $3, $6, $4
       from jsonb_to_recordset($5::jsonb)
         as x(record_id uuid, name text, score double precision, label text, text text)
     on conflict (record_kind, record_id, name) do update
       set score = coalesce(excluded.score, annotations.score),
           label = coalesce(excluded.label, annotations.label),
           text = coalesce(excluded.text, annotations.text),
           annotator_id = excluded.annotator_id,
           annotator_email = excluded.annotator_email,
           updated_at = excluded.updated_at`,
    [
      kind,
      parentId,
      d.annotator_id || null,
      d.at,
      JSON.stringify(d.annotations),
      d.annotator_email || null,
    ],
  );

export const dropAnnotations = (client: PoolClient, parentId: string) =>
  tracedQuery(client, "annotations dropped", "delete from annotations where parent_id = $1", [
    parentId,
  ]);
