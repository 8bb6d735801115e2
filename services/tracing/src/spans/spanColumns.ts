import type { FilterColumns } from "@argus/filter";

/**
 * The names the public span filter language uses (Arize docs and the `ax` CLI), over one row
 * of `spans` aliased `alias`: span fields, `attributes.<key>` (the key literally, dotted as
 * OTLP writes it, else the path), `annotation.<name>.<label|score|text>` and
 * `eval.<name>.<label|score|explanation>`. Every part of a name reaches Postgres as a
 * parameter; unknown names are refused by the compiler, naming them.
 */
export function spanColumns(alias: string): FilterColumns {
  const s = alias;
  const fields: Readonly<Record<string, string>> = {
    name: `to_jsonb(${s}.name)`,
    span_kind: `to_jsonb(${s}.kind)`,
    kind: `to_jsonb(${s}.kind)`,
    status_code: `to_jsonb(${s}.status_code)`,
    status_message: `to_jsonb(${s}.status_message)`,
    parent_id: `to_jsonb(${s}.parent_id)`,
    "context.trace_id": `to_jsonb(${s}.trace_id)`,
    "context.span_id": `to_jsonb(${s}.span_id)`,
    trace_id: `to_jsonb(${s}.trace_id)`,
    span_id: `to_jsonb(${s}.span_id)`,
    latency_ms: `to_jsonb(extract(epoch from (${s}.end_time - ${s}.start_time)) * 1000)`,
  };
  const named = new Map(Object.entries(fields));
  return {
    resolve(path, bind) {
      const whole = named.get(path.join("."));
      if (whole !== undefined) return { sql: whole };
      const [head, ...rest] = path;
      if (head === "attributes" && rest.length > 0) {
        const attrs = `${s}.attributes`;
        return rest.length === 1
          ? { sql: `${attrs} -> ${bind(rest[0]!)}` }
          : { sql: `coalesce(${attrs} -> ${bind(rest.join("."))}, ${attrs} #> ${bind(rest)})` };
      }
      if ((head === "annotation" || head === "eval") && rest.length === 2) {
        const [name, part] = rest as [string, string];
        if (head === "annotation" && ["label", "score", "text"].includes(part))
          return {
            sql: `(select to_jsonb(a.${part}) from span_annotations a
                    where a.project_id = ${s}.project_id and a.granularity = 'SPAN'
                      and a.record_id = ${s}.span_id and a.name = ${bind(name)})`,
          };
        if (head === "eval" && ["label", "score", "explanation"].includes(part))
          return {
            sql: `(select to_jsonb(e.${part}) from span_evaluations e
                    where e.project_id = ${s}.project_id and e.span_id = ${s}.span_id
                      and e.name = ${bind(name)})`,
          };
      }
      return undefined;
    },
  };
}
