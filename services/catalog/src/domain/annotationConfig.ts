import { DomainError } from "@argus/platform";
import { requireCatalogName, requireMaxLength } from "./catalogRules.ts";

export const ANNOTATION_CONFIG_TYPES = ["CONTINUOUS", "CATEGORICAL", "FREEFORM"] as const;
export const OPTIMIZATION_DIRECTIONS = ["MAXIMIZE", "MINIMIZE", "NONE"] as const;
export const CATEGORICAL_VALUES_MIN = 2;
export const CATEGORICAL_VALUES_MAX = 100;
export const LABEL_MAX = 255;

export type CategoricalValue = { label: string; score: number | null };

/** The type-specific part; fields of other types are null / empty. */
export type AnnotationConfigShape = {
  minimum_score: number | null;
  maximum_score: number | null;
  values: CategoricalValue[];
  optimization_direction: string | null;
};

export type AnnotationConfigEvent =
  | {
      type: "AnnotationConfigCreated";
      data: AnnotationConfigShape & {
        id: string;
        account_id: string;
        space_id: string;
        name: string;
        config_type: string;
        created_at: string;
      };
    }
  | {
      type: "AnnotationConfigUpdated";
      data: AnnotationConfigShape & {
        id: string;
        space_id: string;
        name: string;
        updated_at: string;
      };
    }
  | { type: "AnnotationConfigDeleted"; data: { id: string; space_id: string; deleted_at: string } };

export type AnnotationConfigState = AnnotationConfigShape & {
  exists: boolean;
  deleted: boolean;
  id: string;
  spaceId: string;
  type: string;
  name: string;
};

export const initialAnnotationConfigState: AnnotationConfigState = {
  exists: false,
  deleted: false,
  id: "",
  spaceId: "",
  type: "",
  name: "",
  minimum_score: null,
  maximum_score: null,
  values: [],
  optimization_direction: null,
};

export type AnnotationConfigCommand =
  | ({
      type: "CreateAnnotationConfig";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      configType: string;
      now: Date;
    } & Partial<AnnotationConfigShape>)
  | ({
      type: "UpdateAnnotationConfig";
      configType: string;
      name?: string;
      now: Date;
    } & Partial<AnnotationConfigShape>)
  | { type: "DeleteAnnotationConfig"; now: Date };

const invalid = (detail: string) => new DomainError("invalid-request", detail);

/** The type's fields, checked, with everything not of that type cleared. */
function shapeOf(type: string, s: Partial<AnnotationConfigShape>): AnnotationConfigShape {
  const direction = s.optimization_direction ?? "NONE";
  if (type !== "FREEFORM" && !(OPTIMIZATION_DIRECTIONS as readonly string[]).includes(direction))
    throw invalid("optimization_direction must be MAXIMIZE, MINIMIZE or NONE");
  switch (type) {
    case "CONTINUOUS": {
      const min = s.minimum_score ?? null;
      const max = s.maximum_score ?? null;
      if (min === null || max === null)
        throw invalid("a CONTINUOUS config needs minimum_score and maximum_score");
      if (!(min < max)) throw invalid("minimum_score must be less than maximum_score");
      return {
        minimum_score: min,
        maximum_score: max,
        values: [],
        optimization_direction: direction,
      };
    }
    case "CATEGORICAL": {
      const values = s.values ?? [];
      if (values.length < CATEGORICAL_VALUES_MIN || values.length > CATEGORICAL_VALUES_MAX)
        throw invalid(
          `a CATEGORICAL config needs ${CATEGORICAL_VALUES_MIN} to ${CATEGORICAL_VALUES_MAX} values`,
        );
      const seen = new Set<string>();
      for (const v of values) {
        if (v.label.trim() === "") throw invalid("a value label must not be empty");
        requireMaxLength("a value label", v.label, LABEL_MAX);
        if (seen.has(v.label)) throw invalid(`duplicate value label ${JSON.stringify(v.label)}`);
        seen.add(v.label);
      }
      return {
        minimum_score: null,
        maximum_score: null,
        values,
        optimization_direction: direction,
      };
    }
    case "FREEFORM":
      return { minimum_score: null, maximum_score: null, values: [], optimization_direction: null };
    default:
      throw invalid("annotation_config_type must be CONTINUOUS, CATEGORICAL or FREEFORM");
  }
}

function requireLive(state: AnnotationConfigState): void {
  if (!state.exists || state.deleted)
    throw new DomainError("resource-not-found", "annotation config not found");
}

const defined = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Pure: the events a command produces, or the rule it breaks. */
export function decideAnnotationConfig(
  command: AnnotationConfigCommand,
  state: AnnotationConfigState,
): AnnotationConfigEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateAnnotationConfig": {
      if (state.exists)
        throw new DomainError("resource-conflict", "annotation config already exists");
      requireCatalogName(command.name);
      return [
        {
          type: "AnnotationConfigCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            space_id: command.spaceId,
            name: command.name,
            config_type: command.configType,
            ...shapeOf(command.configType, command),
            created_at: at,
          },
        },
      ];
    }
    case "UpdateAnnotationConfig": {
      requireLive(state);
      if (command.configType !== state.type)
        throw invalid(`annotation_config_type is immutable: this config is ${state.type}`);
      const name = command.name ?? state.name;
      requireCatalogName(name);
      const { type: _t, now: _n, configType: _c, name: _name, ...changes } = command;
      const shape = shapeOf(state.type, { ...stateShape(state), ...defined(changes) });
      return [
        {
          type: "AnnotationConfigUpdated",
          data: { id: state.id, space_id: state.spaceId, name, ...shape, updated_at: at },
        },
      ];
    }
    case "DeleteAnnotationConfig":
      requireLive(state);
      return [
        {
          type: "AnnotationConfigDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    default: {
      const never: never = command;
      throw new Error(`unknown command ${String((never as { type: string }).type)}`);
    }
  }
}

function stateShape(s: AnnotationConfigState): AnnotationConfigShape {
  return {
    minimum_score: s.minimum_score,
    maximum_score: s.maximum_score,
    values: s.values,
    optimization_direction: s.optimization_direction,
  };
}

export function evolveAnnotationConfig(
  state: AnnotationConfigState,
  event: AnnotationConfigEvent,
): AnnotationConfigState {
  switch (event.type) {
    case "AnnotationConfigCreated": {
      const { id, space_id, name, config_type, minimum_score, maximum_score, values } = event.data;
      const direction = event.data.optimization_direction;
      return {
        ...state,
        exists: true,
        id,
        spaceId: space_id,
        name,
        type: config_type,
        minimum_score,
        maximum_score,
        values,
        optimization_direction: direction,
      };
    }
    case "AnnotationConfigUpdated": {
      const { name, minimum_score, maximum_score, values, optimization_direction } = event.data;
      return { ...state, name, minimum_score, maximum_score, values, optimization_direction };
    }
    case "AnnotationConfigDeleted":
      return { ...state, deleted: true };
    default: {
      const never: never = event;
      throw new Error(`unknown event ${String((never as { type: string }).type)}`);
    }
  }
}

export function annotationConfigStateOf(
  events: readonly AnnotationConfigEvent[],
): AnnotationConfigState {
  return events.reduce(evolveAnnotationConfig, initialAnnotationConfigState);
}
