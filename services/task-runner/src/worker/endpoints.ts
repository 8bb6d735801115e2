import { Ajv, type ValidateFunction } from "ajv";
import type { OutboundPolicy } from "@argus/platform";
import type { ResolvedEndpoint } from "@argus/proto/catalog/v1/integrations";
import { ItemError, verdictOf, type Verdict } from "./managedEvaluators.ts";
import { guardedFetch, retried, USER_AGENT } from "./providerHttp.ts";

/**
 * Customer endpoints a run calls: REMOTE evaluators (EVALUATOR integrations) and AGENT_CALL
 * experiments (AGENT integrations). Every call goes through the shared outbound guard (the
 * dialled address judged, no redirect followed), with the integration's headers.
 */

export interface EndpointOptions {
  policy: OutboundPolicy;
  timeoutMs: number;
  /** The run's: once aborted, nothing more is sent and the calls out are torn down. */
  stopped?: AbortSignal;
}

/** The reserved request field Argus adds to a REMOTE evaluator's body (the public API's). */
const METADATA_FIELD = "arize_metadata";

type Schema = { type?: unknown; properties?: Record<string, Schema>; required?: unknown };
const ajv = new Ajv({ strict: false, allErrors: false });

/** The endpoint's integration, as a run holds it: address, headers and its body's schema. */
export interface Endpoint {
  id: string;
  url: string;
  headers: Record<string, string>;
  schema: Schema;
  validate: ValidateFunction;
}

export function endpointOf(r: ResolvedEndpoint): Endpoint {
  const schema = JSON.parse(r.inputSchemaJson) as Schema;
  return {
    id: r.id,
    url: r.endpoint,
    headers: r.headersJson ? (JSON.parse(r.headersJson) as Record<string, string>) : {},
    schema,
    validate: ajv.compile(schema),
  };
}

/**
 * POSTs one JSON body, with the providers' retry rule (429, 5xx and no answer tried again,
 * honouring Retry-After, 3 times). Answers the body of the 2xx; anything else is the item's
 * error.
 */
export async function callEndpoint(
  e: Endpoint,
  body: unknown,
  o: EndpointOptions,
): Promise<string> {
  const send = guardedFetch(o.policy, o.timeoutMs, o.stopped);
  try {
    const res = await retried(
      "the endpoint",
      () =>
        send(e.url, {
          method: "POST",
          headers: { "user-agent": USER_AGENT, ...e.headers, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      o.stopped,
    );
    return await res.text();
  } catch (err) {
    throw new ItemError((err as Error).message);
  }
}

/**
 * A value as the type the schema declares for it: numeric text becomes a number (an integer
 * where one is declared), "true"/"false" a boolean, JSON text an object or array, anything
 * else text; with no declared type the value keeps its own. A value that cannot be cast is the
 * item's error, naming where it came from, the value and the type.
 */
export function castTo(value: unknown, schema: Schema | undefined, source: string): unknown {
  const type = schema?.type;
  if (value === null || value === undefined || typeof type !== "string") return value ?? null;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const fail = (): never => {
    throw new ItemError(`${source}: ${JSON.stringify(value)} is not a valid ${type}`);
  };
  switch (type) {
    case "string":
      return text;
    case "number":
    case "integer": {
      if (typeof value === "number")
        return type === "integer" && !Number.isInteger(value) ? fail() : value;
      const n = text.trim() === "" ? NaN : Number(text);
      return !Number.isFinite(n) || (type === "integer" && !Number.isInteger(n)) ? fail() : n;
    }
    case "boolean":
      if (typeof value === "boolean") return value;
      return text === "true" ? true : text === "false" ? false : fail();
    case "object":
    case "array": {
      let parsed: unknown = value;
      if (typeof value === "string")
        try {
          parsed = JSON.parse(value) as unknown;
        } catch {
          fail();
        }
      const isArray = Array.isArray(parsed);
      const ok =
        type === "array" ? isArray : typeof parsed === "object" && parsed !== null && !isArray;
      return ok ? parsed : fail();
    }
    default:
      return value;
  }
}

/** A body that does not match the endpoint's schema is never sent. */
function checked(e: Endpoint, body: Record<string, unknown>): Record<string, unknown> {
  if (!e.validate(body))
    throw new ItemError(
      `the request does not match the input schema: ${ajv.errorsText(e.validate.errors)}`,
    );
  return body;
}

/** The schema's top-level fields: the required ones a REMOTE evaluator needs, the others if present. */
export function schemaVariables(e: Endpoint): { required: string[]; optional: string[] } {
  const fields = Object.keys(e.schema.properties ?? {}).filter((k) => k !== METADATA_FIELD);
  const required = new Set(Array.isArray(e.schema.required) ? (e.schema.required as string[]) : []);
  return {
    required: fields.filter((f) => required.has(f)),
    optional: fields.filter((f) => !required.has(f)),
  };
}

/**
 * A REMOTE evaluator's verdict on one item: the item's values (cast to the schema's types)
 * plus `arize_metadata`, POSTed to the EVALUATOR integration; its answer is read like a code
 * evaluator's result (`label`, `score`, `explanation`).
 */
export async function evaluateRemote(
  e: Endpoint,
  values: Record<string, string>,
  metadata: Record<string, unknown>,
  o: EndpointOptions,
): Promise<Verdict> {
  const body = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, castTo(v, e.schema.properties?.[k], k)]),
  );
  const answer = await callEndpoint(e, { ...checked(e, body), [METADATA_FIELD]: metadata }, o);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer) as unknown;
  } catch {
    throw new ItemError("the endpoint's answer is not JSON");
  }
  return verdictOf(parsed);
}

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]+?)\s*\}\}$/;

/** A column of an example: `name`, `dataset.name`, or a dotted path into a field's object. */
function columnOf(fields: Record<string, unknown>, name: string): unknown {
  const key = name.startsWith("dataset.") && !(name in fields) ? name.slice(8) : name;
  if (key in fields) return fields[key];
  let v: unknown = fields;
  for (const part of key.split(".")) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/**
 * An AGENT_CALL request body: the run configuration's `input_template` with each example's
 * values in place of its `{{column}}` placeholders. A string that is one placeholder becomes
 * the value cast to the type the schema declares there (null when missing); a placeholder
 * inside other text is interpolated as text. The result must match the agent's schema.
 */
export function renderAgentBody(
  e: Endpoint,
  template: Record<string, unknown>,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const fill = (node: unknown, schema: Schema | undefined): unknown => {
    if (typeof node === "string") {
      const whole = WHOLE.exec(node);
      if (whole) return castTo(columnOf(fields, whole[1]!), schema, `column ${whole[1]}`);
      return node.replace(PLACEHOLDER, (_, name: string) => {
        const v = columnOf(fields, name);
        return v === null || v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v);
      });
    }
    if (Array.isArray(node)) return node.map((n) => fill(n, undefined));
    if (node !== null && typeof node === "object")
      return Object.fromEntries(
        Object.entries(node).map(([k, v]) => [k, fill(v, schema?.properties?.[k])]),
      );
    return node;
  };
  return checked(e, fill(template, e.schema) as Record<string, unknown>);
}

/** An agent's answer as the run's output: its text (a JSON string answer, unquoted). */
export function agentOutput(answer: string): string {
  try {
    const parsed = JSON.parse(answer) as unknown;
    return typeof parsed === "string" ? parsed : answer;
  } catch {
    return answer;
  }
}
