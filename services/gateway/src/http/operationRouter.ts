import { DomainError } from "@argus/platform";

/** What a request path and method find among the document's operations. */
export type RouteMatch<T> =
  | { kind: "operation"; route: T; params: Record<string, string> }
  | { kind: "method-not-allowed"; allow: string }
  | { kind: "none" };

interface Template<T> {
  /** Its place among the templates, in the order of their first operations in the document. */
  index: number;
  /** Per segment: the parameter's name, or null for a literal. */
  names: (string | null)[];
  /** By lowercase method: the first operation of this path and method, and its place. */
  methods: Map<string, { route: T; order: number }>;
  allow: string;
}

/** One segment's step in the templates: literal segments (lowercased), a parameter, or the end. */
interface Step<T> {
  literals: Map<string, Step<T>>;
  param: Step<T> | null;
  /** The templates whose last segment this is (`{id}` and `{other}` end at the same step). */
  ends: Template<T>[];
}

const step = <T>(): Step<T> => ({ literals: new Map(), param: null, ends: [] });

const NONE = { kind: "none" } as const;

/**
 * Finds a request's operation by walking its segments through the templates, never trying
 * them one by one, as Express's routes did in document order (get_space, the 115th of 178,
 * paid for 114 misses first). Same answers as those routes: literal segments match
 * case-insensitively, a parameter is one non-empty segment, percent-decoded (a malformed or
 * non-UTF-8 encoding is 400, from the first template that matches), one trailing slash is
 * ignored; of the operations whose template matches and that take the method (HEAD: GET's),
 * the first in the document runs; where none takes it, the first matching template answers
 * 405 with its `Allow`.
 */
export function operationRouter<T>(
  operations: readonly { path: string; method: string; route: T }[],
): (method: string, pathname: string) => RouteMatch<T> {
  const templates = new Map<string, Template<T>>();
  const root = step<T>();
  operations.forEach((op, order) => {
    let t = templates.get(op.path);
    if (!t) {
      const segments = op.path.split("/");
      const names = segments.map((s) => /^\{([A-Za-z_$][\w$]*)\}$/.exec(s)?.[1] ?? null);
      t = { index: templates.size, names, methods: new Map(), allow: "" };
      templates.set(op.path, t);
      let at = root;
      segments.forEach((s, i) => {
        if (names[i] !== null) {
          at = at.param ??= step();
          return;
        }
        if (s.includes("{")) throw new Error(`unsupported path template ${op.path}`);
        const literal = s.toLowerCase();
        let next = at.literals.get(literal);
        if (!next) at.literals.set(literal, (next = step()));
        at = next;
      });
      at.ends.push(t);
    }
    const method = op.method.toLowerCase();
    if (!t.methods.has(method)) t.methods.set(method, { route: op.route, order });
  });
  for (const t of templates.values()) {
    const methods = [...t.methods.keys()].map((m) => m.toUpperCase());
    if (methods.includes("GET")) methods.push("HEAD");
    t.allow = methods.join(", ");
  }

  return (method, pathname) => {
    const trimmed =
      pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    const segments = trimmed.split("/");
    const found: Template<T>[] = [];
    collect(root, segments, 0, found);
    if (found.length === 0) return NONE;
    let first = found[0]!;
    for (const t of found) if (t.index < first.index) first = t;
    const params = paramsOf(first, segments); // a bad encoding is refused whatever the method
    const m = method.toLowerCase();
    let best: { t: Template<T>; route: T; order: number } | undefined;
    for (const t of found) {
      const op = t.methods.get(m) ?? (m === "head" ? t.methods.get("get") : undefined);
      if (op && (!best || op.order < best.order)) best = { t, ...op };
    }
    if (!best) return { kind: "method-not-allowed", allow: first.allow };
    return {
      kind: "operation",
      route: best.route,
      params: best.t === first ? params : paramsOf(best.t, segments),
    };
  };
}

/** Every template `segments` matches from `at` on, its `i`-th segment onwards. */
function collect<T>(at: Step<T>, segments: string[], i: number, found: Template<T>[]): void {
  if (i === segments.length) {
    for (const t of at.ends) found.push(t);
    return;
  }
  const s = segments[i]!;
  if (at.literals.size > 0) {
    const next = at.literals.get(s) ?? at.literals.get(s.toLowerCase());
    if (next) collect(next, segments, i + 1, found);
  }
  if (at.param && s !== "") collect(at.param, segments, i + 1, found);
}

function paramsOf<T>(t: Template<T>, segments: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < t.names.length; i++) {
    const name = t.names[i]!;
    if (name !== null) params[name] = decodeSegment(segments[i]!);
  }
  return params;
}

function decodeSegment(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new DomainError(
      "invalid-request",
      `path parameter '${raw}' is not UTF-8, which cannot be stored`,
    );
  }
}
