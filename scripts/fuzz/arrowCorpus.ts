import { arrowCases } from "../../test/fuzz/arrowCases.ts";

export interface CorpusReport {
  cases: number;
  /** By status, as the gateway answered. */
  statuses: Record<string, number>;
  /** One line per case whose answer broke a rule. */
  failures: string[];
}

interface Json {
  [k: string]: unknown;
}

const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const isEvaluations = (v: unknown): boolean =>
  typeof v === "object" &&
  v !== null &&
  isCount((v as Json).records_updated) &&
  Array.isArray((v as Json).unmatched_ids) &&
  Object.keys(v).length === 2;

/** What is wrong with an answer of `/v1/pandas_arrow` by the v1 document's rules, if anything. */
function answerFault(status: number, type: string, body: string): string | undefined {
  if (status >= 500) return `a server error`;
  let json: Json;
  try {
    json = JSON.parse(body) as Json;
  } catch {
    return `a body that is no JSON (${type})`;
  }
  if (status === 200) {
    if (!type.startsWith("application/json")) return `200 as ${type}, not application/json`;
    const logged =
      isCount(json.spans_logged) &&
      Object.keys(json).every((k) => k === "spans_logged" || k === "evaluations") &&
      (json.evaluations === undefined || isEvaluations(json.evaluations));
    return logged || isEvaluations(json) ? undefined : `a 200 body of neither documented shape`;
  }
  if (![400, 401, 403, 404, 413, 429].includes(status)) return `an undocumented ${status}`;
  if (!type.startsWith("application/problem+json")) return `${status} as ${type}, not a Problem`;
  const problem =
    typeof json.type === "string" &&
    typeof json.title === "string" &&
    json.status === status &&
    typeof json.detail === "string";
  return problem ? undefined : `a ${status} Problem missing type, title, status or detail`;
}

/**
 * The hand-made bodies of test/fuzz/arrowCases.ts posted to `/v1/pandas_arrow` as `key` (the
 * bare key, as the SDK sends it) into `spaceId`: every answer must be a documented one (200 with
 * its JSON, or a Problem), and a case that names its status must get it.
 */
export async function runArrowCorpus(r: {
  baseUrl: string;
  key: () => Promise<string>;
  spaceId: string;
  seed: number;
}): Promise<CorpusReport> {
  const report: CorpusReport = { cases: 0, statuses: {}, failures: [] };
  for (const c of arrowCases(`fuzz pandas_arrow ${r.seed}`, r.seed)) {
    report.cases++;
    let res: Response;
    let body: string;
    try {
      res = await fetch(`${r.baseUrl}/v1/pandas_arrow`, {
        method: "POST",
        headers: {
          authorization: await r.key(),
          "arize-space-id": r.spaceId,
          "arize-interface": "batch",
        },
        body: c.body,
        // A body that hangs the gateway is a failure to report, not a reason to stop.
        signal: AbortSignal.timeout(30_000),
      });
      body = await res.text();
    } catch (err) {
      report.statuses.none = (report.statuses.none ?? 0) + 1;
      report.failures.push(
        `${c.name}: no answer (${err instanceof Error ? err.message : String(err)})`,
      );
      continue;
    }
    report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
    const fault =
      answerFault(res.status, res.headers.get("content-type") ?? "(none)", body) ??
      (c.status !== undefined && res.status !== c.status
        ? `not the ${c.status} expected`
        : undefined);
    if (fault) report.failures.push(`${c.name}: ${res.status} ${fault}: ${body.slice(0, 300)}`);
  }
  return report;
}
