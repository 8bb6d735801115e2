// Annotations of a space's records (dataset examples, experiment runs, spans) keep to the
// annotation configs of that space, one rule for every service that stores them.
import { LIMITS, type AnnotationWrite } from "@argus/contracts";
import { EVENT_PAYLOAD_BYTES, chunkBySize } from "@argus/eventstore";
import { DomainError } from "@argus/platform";

const unprocessable = (detail: string) => new DomainError("validation-error", detail);

export interface AnnotationInput {
  recordId: string;
  values: {
    name: string;
    score?: number | undefined;
    label?: string | undefined;
    text?: string | undefined;
  }[];
}

/** An annotation config as the catalog answers for it: what a value must keep to. */
export interface ConfigRules {
  name: string;
  type: string;
  labels: string[];
  minimumScore?: number | undefined;
  maximumScore?: number | undefined;
}

/** The distinct config names a request uses, for the one look-up of their rules. */
export const namesOf = (records: readonly AnnotationInput[]): string[] => [
  ...new Set(records.flatMap((r) => r.values.map((v) => v.name))),
];

/**
 * What becomes of a record id that names no record (`present` lacks it): `ignore` leaves it
 * out and writes the rest (dataset examples and experiment runs, as the public API documents);
 * `refuse` refuses the whole request with 404 and writes nothing (spans: all or nothing), `what`
 * naming the records looked for.
 */
export type Unmatched = { unmatched: "ignore" } | { unmatched: "refuse"; what: string };

/**
 * The rules of an annotate request (the public API's AnnotateRecordInput): 1 to 1000 records,
 * each with at least one value; a name is an annotation config of the record's space and
 * appears once per record; a label is one of a categorical config's labels, a score within a
 * continuous config's bounds (422 otherwise, for every record, matched or not). Then a record
 * id that names no record of `present` is ignored or refused, as `unmatched` says.
 */
export function decideAnnotations(
  records: readonly AnnotationInput[],
  configs: readonly ConfigRules[],
  present: ReadonlySet<string>,
  unmatched: Unmatched,
): AnnotationWrite[] {
  if (records.length < 1 || records.length > LIMITS.ANNOTATED_RECORDS_MAX)
    throw unprocessable(`annotations must hold 1 to ${LIMITS.ANNOTATED_RECORDS_MAX} records`);
  const rules = new Map(configs.map((c) => [c.name, c]));
  const checked = records.map((record, i) => {
    if (record.values.length === 0)
      throw unprocessable(`annotations[${i}].values must hold at least one value`);
    const seen = new Set<string>();
    return record.values.map((v, j): AnnotationWrite => {
      const at = `annotations[${i}].values[${j}]`;
      const config = rules.get(v.name);
      if (!config)
        throw unprocessable(
          `${at}.name ${JSON.stringify(v.name)} is no annotation config of this space`,
        );
      if (seen.has(v.name))
        throw unprocessable(`${at}.name ${JSON.stringify(v.name)} appears twice`);
      seen.add(v.name);
      if (
        v.label !== undefined &&
        config.type === "CATEGORICAL" &&
        !config.labels.includes(v.label)
      )
        throw unprocessable(`${at}.label must be one of ${JSON.stringify(config.labels)}`);
      if (
        v.score !== undefined &&
        ((config.minimumScore !== undefined && v.score < config.minimumScore) ||
          (config.maximumScore !== undefined && v.score > config.maximumScore))
      )
        throw unprocessable(
          `${at}.score must be within [${config.minimumScore ?? "-∞"}, ${config.maximumScore ?? "∞"}]`,
        );
      return {
        record_id: record.recordId,
        name: v.name,
        ...(v.score === undefined ? {} : { score: v.score }),
        ...(v.label === undefined ? {} : { label: v.label }),
        ...(v.text === undefined ? {} : { text: v.text }),
      };
    });
  });
  const missing = records.findIndex((r) => !present.has(r.recordId));
  if (missing >= 0 && unmatched.unmatched === "refuse")
    throw new DomainError(
      "resource-not-found",
      `annotations[${missing}].record_id names no ${unmatched.what}; nothing was written`,
    );
  // A record named twice: its values of one name merge in request order (one upsert each).
  const merged = new Map<string, AnnotationWrite>();
  for (const a of checked.flat()) {
    if (!present.has(a.record_id)) continue;
    const key = `${a.record_id}\u0000${a.name}`;
    merged.set(key, { ...merged.get(key), ...a });
  }
  return [...merged.values()];
}

/** Annotations as events that each fit one NATS message (a large request is several). */
export const annotationChunks = (annotations: readonly AnnotationWrite[]): AnnotationWrite[][] =>
  chunkBySize(annotations, (a) => Buffer.byteLength(JSON.stringify(a)) + 16, EVENT_PAYLOAD_BYTES);
