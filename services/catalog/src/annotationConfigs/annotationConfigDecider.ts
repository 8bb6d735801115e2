import type { Decider } from "@argus/eventstore";
import type { AnnotationConfigEvent, AnnotationConfigShape } from "@argus/contracts";
import { DomainError, requireLive, requireNew, unreachable, type Lifecycle } from "@argus/platform";
import { given, shapeOf } from "./annotationConfigRules.ts";
import { invalid, requireCatalogName } from "../shared/catalogRules.ts";

export type AnnotationConfigState = Lifecycle<
  AnnotationConfigShape & { id: string; spaceId: string; type: string; name: string }
>;

export const CONFIG_IN_USE =
  "the annotation config is used by an annotation queue; remove it there first";

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
  /** `usedByQueue` is read in the command's transaction (annotation_queue_configs). */
  | { type: "DeleteAnnotationConfig"; usedByQueue: boolean; now: Date };

function decide(
  command: AnnotationConfigCommand,
  state: AnnotationConfigState,
): AnnotationConfigEvent[] {
  const at = command.now.toISOString();
  switch (command.type) {
    case "CreateAnnotationConfig": {
      requireNew(state, "annotation config");
      requireCatalogName(command.name);
      const { id, accountId, spaceId, name, configType } = command;
      return [
        {
          type: "AnnotationConfigCreated",
          data: {
            id,
            account_id: accountId,
            space_id: spaceId,
            name,
            config_type: configType,
            ...shapeOf(configType, command),
            created_at: at,
          },
        },
      ];
    }
    case "UpdateAnnotationConfig": {
      requireLive(state, "annotation config");
      if (command.configType !== state.type)
        throw invalid(`annotation_config_type is immutable: this config is ${state.type}`);
      const name = command.name ?? state.name;
      requireCatalogName(name);
      const { type: _t, now: _n, configType: _c, name: _name, ...changes } = command;
      const { id, spaceId, type: _type, status: _s, name: _old, ...current } = state;
      const shape = shapeOf(state.type, { ...current, ...given(changes) });
      return [
        {
          type: "AnnotationConfigUpdated",
          data: { id, space_id: spaceId, name, ...shape, updated_at: at },
        },
      ];
    }
    case "DeleteAnnotationConfig":
      requireLive(state, "annotation config");
      if (command.usedByQueue) throw new DomainError("resource-conflict", CONFIG_IN_USE);
      return [
        {
          type: "AnnotationConfigDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    default:
      return unreachable(command);
  }
}

function evolve(state: AnnotationConfigState, event: AnnotationConfigEvent): AnnotationConfigState {
  switch (event.type) {
    case "AnnotationConfigCreated": {
      const {
        id,
        space_id,
        name,
        config_type,
        created_at: _c,
        account_id: _a,
        ...shape
      } = event.data;
      return { status: "live", id, spaceId: space_id, name, type: config_type, ...shape };
    }
    case "AnnotationConfigUpdated": {
      if (state.status !== "live") return state;
      const { id: _i, space_id: _s, updated_at: _u, ...changed } = event.data;
      return { ...state, ...changed };
    }
    case "AnnotationConfigDeleted":
      return { status: "deleted" };
    default:
      return unreachable(event);
  }
}

/** An annotation config: its type fixed at creation, its shape checked on every change. */
export const annotationConfigDecider: Decider<
  AnnotationConfigState,
  AnnotationConfigCommand,
  AnnotationConfigEvent
> = {
  initialState: { status: "none" },
  evolve,
  decide,
};
