/**
 * The managed (built-in) code evaluators, run in process: pure functions of the variables the
 * evaluator names (resolved from the item through the task's column mappings) and its static
 * parameters. Each answers a label ("true" / "false") and a score (1 / 0); an evaluator that
 * cannot run on an item (a missing variable, a bad parameter) throws, which counts as that
 * item's error, never the run's.
 */
const MANAGED_EVALUATORS = [
  "EXACT_MATCH",
  "MATCHES_REGEX",
  "JSON_PARSEABLE",
  "CONTAINS_ANY_KEYWORD",
  "CONTAINS_ALL_KEYWORDS",
] as const;
type ManagedEvaluator = (typeof MANAGED_EVALUATORS)[number];

interface StaticParam {
  name: string;
  type?: string;
  default_value: string | string[];
}

export interface ManagedConfig {
  name: string;
  managed_evaluator: ManagedEvaluator;
  variables: string[];
  static_params: StaticParam[];
}

export interface Verdict {
  label: string;
  score: number;
  explanation: string;
}

/** Longest text a managed evaluator reads: a regular expression never sees more. */
const MAX_TEXT = 100_000;

export class ItemError extends Error {}

/**
 * A code evaluator's result as a verdict (CUSTOM code, a REMOTE endpoint): a label or a score
 * at least; the label defaults to the score as text, the score to 0.
 */
export function verdictOf(result: unknown): Verdict {
  const r = (result ?? {}) as { label?: unknown; score?: unknown; explanation?: unknown };
  const score = typeof r.score === "number" && Number.isFinite(r.score) ? r.score : null;
  const label = r.label === null || r.label === undefined ? null : String(r.label);
  if (label === null && score === null)
    throw new ItemError("the evaluator returned neither a label nor a score");
  return {
    label: label ?? String(score),
    score: score ?? 0,
    explanation: r.explanation === null || r.explanation === undefined ? "" : String(r.explanation),
  };
}

const param = (c: ManagedConfig, ...names: string[]): string | string[] => {
  const p = c.static_params.find((s) => names.includes(s.name));
  if (!p) throw new ItemError(`${c.managed_evaluator} needs the static parameter ${names[0]}`);
  return p.default_value;
};

const keywords = (c: ManagedConfig): string[] => {
  const v = param(c, "keywords", "keyword_list");
  const list = Array.isArray(v) ? v : v.split(",");
  const words = list.map((w) => w.trim().toLowerCase()).filter((w) => w !== "");
  if (words.length === 0) throw new ItemError(`${c.managed_evaluator}: no keywords`);
  return words;
};

const verdict = (ok: boolean, explanation: string): Verdict => ({
  label: ok ? "true" : "false",
  score: ok ? 1 : 0,
  explanation,
});

export function evaluateManaged(c: ManagedConfig, values: readonly string[]): Verdict {
  const text = (i: number) => {
    const v = values[i];
    if (v === undefined) throw new ItemError(`missing variable ${c.variables[i] ?? i}`);
    return v.length > MAX_TEXT ? v.slice(0, MAX_TEXT) : v;
  };
  switch (c.managed_evaluator) {
    case "EXACT_MATCH": {
      const ok = text(0) === text(1);
      return verdict(ok, ok ? "the values are equal" : "the values differ");
    }
    case "MATCHES_REGEX": {
      const source = param(c, "pattern", "regex");
      let re: RegExp;
      try {
        re = new RegExp(Array.isArray(source) ? source.join("") : source);
      } catch (err) {
        throw new ItemError(`bad pattern: ${(err as Error).message}`);
      }
      const ok = re.test(text(0));
      return verdict(ok, ok ? `matches ${re.source}` : `does not match ${re.source}`);
    }
    case "JSON_PARSEABLE": {
      try {
        JSON.parse(text(0));
        return verdict(true, "parses as JSON");
      } catch (err) {
        return verdict(false, `not JSON: ${(err as Error).message}`);
      }
    }
    case "CONTAINS_ANY_KEYWORD":
    case "CONTAINS_ALL_KEYWORDS": {
      const hay = text(0).toLowerCase();
      const words = keywords(c);
      const found = words.filter((w) => hay.includes(w));
      const ok =
        c.managed_evaluator === "CONTAINS_ANY_KEYWORD"
          ? found.length > 0
          : found.length === words.length;
      return verdict(ok, `contains ${found.length} of ${words.length} keywords`);
    }
  }
}

/** The managed config of a CODE evaluator version's code_config, or why it is not one. */
export function managedConfigOf(code: Record<string, unknown>): ManagedConfig | string {
  if (code.type !== "MANAGED") return `${String(code.type)} code evaluators are not run yet`;
  const kind = String(code.managed_evaluator);
  if (!(MANAGED_EVALUATORS as readonly string[]).includes(kind))
    return `unknown managed evaluator ${kind}`;
  return {
    name: typeof code.name === "string" && code.name !== "" ? code.name : kind.toLowerCase(),
    managed_evaluator: kind as ManagedEvaluator,
    variables: Array.isArray(code.variables) ? code.variables.map(String) : [],
    static_params: Array.isArray(code.static_params) ? (code.static_params as StaticParam[]) : [],
  };
}

/** A CUSTOM code_config: user Python, run by the sandbox (worker/sandbox.ts). */
export interface CustomCodeConfig {
  name: string;
  code: string;
  imports: string | null;
  variables: string[];
  static_params: StaticParam[];
}

export function customConfigOf(code: Record<string, unknown>): CustomCodeConfig {
  return {
    name: typeof code.name === "string" && code.name !== "" ? code.name : "custom",
    code: typeof code.code === "string" ? code.code : "",
    imports: typeof code.imports === "string" ? code.imports : null,
    variables: Array.isArray(code.variables) ? code.variables.map(String) : [],
    static_params: Array.isArray(code.static_params) ? (code.static_params as StaticParam[]) : [],
  };
}
