import { Ajv, type AnySchema } from "ajv";
import type { Decider } from "@argus/eventstore";
import type { IntegrationEvent, IntegrationPreset, IntegrationSettings } from "@argus/contracts";
import { textLength } from "@argus/contracts";
import { DomainError, requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import {
  invalid,
  requireCatalogName,
  requireMaxLength,
  unprocessable,
} from "../shared/catalogRules.ts";

const ENDPOINT_MAX = 2048;
const INTEGRATION_DESCRIPTION_MAX = 1024;
const PRESET_NAME_MAX = 255;
const PRESET_DESCRIPTION_MAX = 1024;
const INPUT_SCHEMA_MAX_BYTES = 64 * 1024;
const HEADERS_MAX_BYTES = 8175;
/** The field Arize adds to every request body, so a schema may not define it. */
const RESERVED_FIELD = "arize_metadata";

/** A preset as a caller writes it; ids and times are the decider's. */
interface PresetInput {
  name: string;
  description: string | null;
  config: Record<string, unknown>;
}

/** Settings as a command carries them: presets as written, header values apart. */
export type IntegrationInput = Omit<IntegrationSettings, "request_presets" | "header_names"> & {
  request_presets: PresetInput[];
  /** Undefined: unchanged (updates only); null: none. Values never enter an event. */
  headers: Record<string, string> | null | undefined;
};

export type IntegrationState = Lifecycle<{ id: string; settings: IntegrationSettings }>;

export type IntegrationCommand =
  | {
      type: "CreateIntegration";
      id: string;
      accountId: string;
      input: IntegrationInput;
      userId: string;
      /** Fresh ids for the presets, in order. */
      presetIds: string[];
      now: Date;
    }
  | {
      type: "UpdateIntegration";
      /** The fields the caller sent; the others keep their stored values. */
      changes: Partial<IntegrationInput>;
      presetIds: string[];
      now: Date;
    }
  /** Refused (409) while an active REMOTE evaluator version still names it. */
  | { type: "DeleteIntegration"; usedByEvaluators: number; now: Date }
  | { type: "RemoveSpaceScopings"; spaceId: string; now: Date };

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });

/** The schema a preset is checked against: the integration's, with `required` dropped. */
function withoutRequired(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRequired);
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k, v]) => !(k === "required" && Array.isArray(v)))
      .map(([k, v]) => [k, withoutRequired(v)]),
  );
}

function compile(schema: unknown, what: string) {
  try {
    return ajv.compile(schema as AnySchema);
  } catch (e) {
    throw unprocessable(`${what} is not a valid JSON Schema: ${(e as Error).message}`);
  }
}

/** The public API's rules for the schema (EVALUATOR's are stated; AGENT shares the size cap). */
function checkInputSchema(type: IntegrationSettings["type"], schema: Record<string, unknown>) {
  if (Buffer.byteLength(JSON.stringify(schema)) > INPUT_SCHEMA_MAX_BYTES)
    throw invalid(`config.input_schema must not exceed ${INPUT_SCHEMA_MAX_BYTES} bytes`);
  if (type === "EVALUATOR") {
    if (schema.type !== "object")
      throw unprocessable("config.input_schema must have type: object at its root");
    const props = schema.properties;
    if (props !== null && typeof props === "object" && RESERVED_FIELD in props)
      throw unprocessable(`config.input_schema must not define the reserved ${RESERVED_FIELD}`);
  }
  compile(schema, "config.input_schema");
}

function checkPresets(type: IntegrationSettings["type"], input: IntegrationInput) {
  const presets = input.request_presets;
  if (type === "EVALUATOR" && presets.length > 0)
    throw invalid("request_presets belong to AGENT integrations only");
  if (presets.length === 0) return;
  const validate = compile(withoutRequired(input.input_schema), "config.input_schema");
  const seen = new Set<string>();
  for (const p of presets) {
    if (textLength(p.name) < 1 || textLength(p.name) > PRESET_NAME_MAX)
      throw invalid(`a preset name must be 1 to ${PRESET_NAME_MAX} characters`);
    requireMaxLength("a preset's description", p.description, PRESET_DESCRIPTION_MAX);
    if (seen.has(p.name)) throw unprocessable(`preset name ${p.name} is used twice`);
    seen.add(p.name);
    if (!validate(p.config))
      throw unprocessable(
        `preset ${p.name}: config does not match config.input_schema (${ajv.errorsText(validate.errors)})`,
      );
  }
}

function checkInput(i: IntegrationInput) {
  requireCatalogName(i.name);
  requireMaxLength("description", i.description, INTEGRATION_DESCRIPTION_MAX);
  requireMaxLength("config.endpoint", i.endpoint, ENDPOINT_MAX);
  if (i.headers && Buffer.byteLength(JSON.stringify(i.headers)) > HEADERS_MAX_BYTES)
    throw invalid(`config.headers must not exceed ${HEADERS_MAX_BYTES} bytes serialized`);
  checkInputSchema(i.type, i.input_schema);
  checkPresets(i.type, i);
}

/**
 * Presets replace on provide, matched by name: a kept name keeps its id and creation time (and
 * its update time when nothing of it changed); a new name gets the next fresh id.
 */
function presetsOf(
  before: readonly IntegrationPreset[],
  written: readonly PresetInput[],
  ids: readonly string[],
  at: string,
): IntegrationPreset[] {
  const byName = new Map(before.map((p) => [p.name, p]));
  let fresh = 0;
  return written.map((w) => {
    const old = byName.get(w.name);
    if (!old) return { id: ids[fresh++]!, ...w, created_at: at, updated_at: at };
    const same =
      old.description === w.description && JSON.stringify(old.config) === JSON.stringify(w.config);
    return { ...old, ...w, updated_at: same ? old.updated_at : at };
  });
}

const settingsOf = (
  i: IntegrationInput,
  headerNames: string[],
  presets: IntegrationPreset[],
): IntegrationSettings => ({
  type: i.type,
  name: i.name,
  description: i.description,
  endpoint: i.endpoint,
  input_schema: i.input_schema,
  header_names: headerNames,
  request_presets: presets,
  scopings: i.scopings,
});

function decide(command: IntegrationCommand, state: IntegrationState): IntegrationEvent[] {
  const at = command.now.toISOString();
  if (command.type === "CreateIntegration") {
    requireNew(state, "integration");
    const i = command.input;
    checkInput(i);
    const presets = presetsOf([], i.request_presets, command.presetIds, at);
    const settings = settingsOf(i, Object.keys(i.headers ?? {}), presets);
    return [
      {
        type: "IntegrationCreated",
        data: {
          id: command.id,
          account_id: command.accountId,
          ...settings,
          created_by_user_id: command.userId,
          created_at: at,
        },
      },
    ];
  }
  requireLive(state, "integration");
  const s = state.settings;
  const deleted: IntegrationEvent = {
    type: "IntegrationDeleted",
    data: { id: state.id, deleted_at: at },
  };
  switch (command.type) {
    case "UpdateIntegration": {
      const c = command.changes;
      if (c.type !== undefined && c.type !== s.type)
        throw unprocessable(`type is ${s.type}; it cannot change (delete and create instead)`);
      const input: IntegrationInput = {
        ...s,
        ...c,
        type: s.type,
        request_presets: c.request_presets ?? s.request_presets,
        headers: c.headers,
      };
      checkInput(input);
      const names = c.headers === undefined ? s.header_names : Object.keys(c.headers ?? {});
      const presets = presetsOf(s.request_presets, input.request_presets, command.presetIds, at);
      const data = { id: state.id, ...settingsOf(input, names, presets), updated_at: at };
      return [{ type: "IntegrationUpdated", data }];
    }
    case "DeleteIntegration":
      if (command.usedByEvaluators > 0)
        throw new DomainError(
          "resource-conflict",
          `${command.usedByEvaluators} REMOTE evaluator(s) still use this integration; delete or repoint them first`,
        );
      return [deleted];
    case "RemoveSpaceScopings": {
      // As for AI integrations: no scoping left means deleted, never widened to account-wide.
      const scopings = s.scopings.filter((x) => x.space_id !== command.spaceId);
      if (scopings.length === s.scopings.length) return [];
      if (scopings.length === 0) return [deleted];
      return [
        { type: "IntegrationUpdated", data: { id: state.id, ...s, scopings, updated_at: at } },
      ];
    }
    default:
      return unreachable(command);
  }
}

function evolve(state: IntegrationState, event: IntegrationEvent): IntegrationState {
  switch (event.type) {
    case "IntegrationCreated":
    case "IntegrationUpdated": {
      if (event.type === "IntegrationUpdated" && state.status !== "live") return state;
      const { id, ...d } = event.data;
      return {
        status: "live",
        id,
        settings: settingsOf({ ...d, headers: null }, d.header_names, d.request_presets),
      };
    }
    case "IntegrationDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** An AGENT or EVALUATOR integration of the account: a remote endpoint Argus may call. */
export const integrationDecider: Decider<IntegrationState, IntegrationCommand, IntegrationEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
