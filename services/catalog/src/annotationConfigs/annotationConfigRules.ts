import { LIMITS, type AnnotationConfigShape } from "@argus/contracts";
import { invalid, requireMaxLength } from "../shared/catalogRules.ts";

const OPTIMIZATION_DIRECTIONS = ["MAXIMIZE", "MINIMIZE", "NONE"] as const;
const CATEGORICAL_VALUES_MIN = 2;
const LABEL_MAX = 255;

/** The type's fields, checked, with everything not of that type cleared. */
export function shapeOf(type: string, s: Partial<AnnotationConfigShape>): AnnotationConfigShape {
  const direction = s.optimization_direction ?? "NONE";
  if (type !== "FREEFORM" && !(OPTIMIZATION_DIRECTIONS as readonly string[]).includes(direction))
    throw invalid("optimization_direction must be MAXIMIZE, MINIMIZE or NONE");
  const none = { minimum_score: null, maximum_score: null, values: [] };
  switch (type) {
    case "CONTINUOUS": {
      const min = s.minimum_score ?? null;
      const max = s.maximum_score ?? null;
      if (min === null || max === null)
        throw invalid("a CONTINUOUS config needs minimum_score and maximum_score");
      if (!(min < max)) throw invalid("minimum_score must be less than maximum_score");
      return { ...none, minimum_score: min, maximum_score: max, optimization_direction: direction };
    }
    case "CATEGORICAL": {
      const values = s.values ?? [];
      if (values.length < CATEGORICAL_VALUES_MIN || values.length > LIMITS.CATEGORICAL_VALUES_MAX)
        throw invalid(
          `a CATEGORICAL config needs ${CATEGORICAL_VALUES_MIN} to ${LIMITS.CATEGORICAL_VALUES_MAX} values`,
        );
      const seen = new Set<string>();
      for (const v of values) {
        if (v.label.trim() === "") throw invalid("a value label must not be empty");
        requireMaxLength("a value label", v.label, LABEL_MAX);
        if (seen.has(v.label)) throw invalid(`duplicate value label ${JSON.stringify(v.label)}`);
        seen.add(v.label);
      }
      return { ...none, values, optimization_direction: direction };
    }
    case "FREEFORM":
      return { ...none, optimization_direction: null };
    default:
      throw invalid("annotation_config_type must be CONTINUOUS, CATEGORICAL or FREEFORM");
  }
}

/** The fields of `changes` that were given (undefined: keep the current value). */
export const given = <T extends object>(changes: T): Partial<T> =>
  Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;
