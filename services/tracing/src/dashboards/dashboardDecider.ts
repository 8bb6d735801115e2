import type { Decider } from "@argus/eventstore";
import { LIMITS, type DashboardEvent, type WidgetSpec } from "@argus/contracts";
import { DomainError, type Lifecycle } from "@argus/platform";
import { unprocessable } from "../monitors/monitorRules.ts";
import { checkDashboardDescription, checkDashboardName, checkWidget } from "./dashboardRules.ts";

export type DashboardState = Lifecycle<{
  id: string;
  accountId: string;
  spaceId: string;
  name: string;
  description: string;
  /** Widget id → its type (fixed once added). */
  widgets: Record<string, string>;
}>;

export type DashboardCommand =
  | {
      type: "CreateDashboard";
      id: string;
      accountId: string;
      spaceId: string;
      name: string;
      description: string;
      userId: string;
      now: Date;
    }
  | { type: "UpdateDashboard"; name?: string; description?: string; now: Date }
  | { type: "DeleteDashboard"; now: Date }
  | { type: "AddWidget"; widgetId: string; spec: WidgetSpec; userId: string; now: Date }
  | { type: "ChangeWidget"; widgetId: string; spec: WidgetSpec; now: Date }
  /** `ifPresent`: a cascade's removal of a widget that may be gone already. */
  | { type: "RemoveWidget"; widgetId: string; now: Date; ifPresent?: boolean };

const notFound = (what: string) => new DomainError("resource-not-found", `${what} not found`);

function decide(command: DashboardCommand, state: DashboardState): DashboardEvent[] {
  if (command.type === "CreateDashboard") {
    if (state.status !== "none") throw new DomainError("resource-conflict", "dashboard exists");
    return [
      {
        type: "DashboardCreated",
        data: {
          id: command.id,
          account_id: command.accountId,
          space_id: command.spaceId,
          name: checkDashboardName(command.name),
          description: checkDashboardDescription(command.description),
          created_by_user_id: command.userId,
          created_at: command.now.toISOString(),
        },
      },
    ];
  }
  if (state.status !== "live") throw notFound("dashboard");
  const at = command.now.toISOString();
  const on = { dashboard_id: state.id };
  switch (command.type) {
    case "UpdateDashboard":
      return [
        {
          type: "DashboardUpdated",
          data: {
            id: state.id,
            space_id: state.spaceId,
            name: checkDashboardName(command.name ?? state.name),
            description: checkDashboardDescription(command.description ?? state.description),
            updated_at: at,
          },
        },
      ];
    case "DeleteDashboard":
      return [
        {
          type: "DashboardDeleted",
          data: { id: state.id, space_id: state.spaceId, deleted_at: at },
        },
      ];
    case "AddWidget":
      if (Object.keys(state.widgets).length >= LIMITS.WIDGETS_PER_DASHBOARD_MAX)
        throw unprocessable(
          `a dashboard holds at most ${LIMITS.WIDGETS_PER_DASHBOARD_MAX} widgets`,
        );
      return [
        {
          type: "WidgetAdded",
          data: {
            ...checkWidget(command.spec),
            id: command.widgetId,
            ...on,
            creator_user_id: command.userId,
            created_at: at,
          },
        },
      ];
    case "ChangeWidget": {
      const type = state.widgets[command.widgetId];
      if (type === undefined) throw notFound("widget");
      if (command.spec.type !== type)
        throw unprocessable(`a widget's type is fixed: this one is a ${type}`);
      return [
        {
          type: "WidgetChanged",
          data: { ...checkWidget(command.spec), id: command.widgetId, ...on, updated_at: at },
        },
      ];
    }
    case "RemoveWidget":
      if (state.widgets[command.widgetId] === undefined) {
        if (command.ifPresent) return [];
        throw notFound("widget");
      }
      return [{ type: "WidgetRemoved", data: { id: command.widgetId, ...on, removed_at: at } }];
  }
}

function evolve(state: DashboardState, event: DashboardEvent): DashboardState {
  switch (event.type) {
    case "DashboardCreated":
      return {
        status: "live",
        id: event.data.id,
        accountId: event.data.account_id,
        spaceId: event.data.space_id,
        name: event.data.name,
        description: event.data.description,
        widgets: {},
      };
    case "DashboardDeleted":
      return { status: "deleted" };
    default:
      if (state.status !== "live") return state;
  }
  switch (event.type) {
    case "DashboardUpdated":
      return { ...state, name: event.data.name, description: event.data.description };
    case "WidgetAdded":
      return { ...state, widgets: { ...state.widgets, [event.data.id]: event.data.type } };
    case "WidgetRemoved": {
      const { [event.data.id]: _gone, ...widgets } = state.widgets;
      return { ...state, widgets };
    }
    default:
      return state;
  }
}

/**
 * A dashboard and the set of its widgets (at most WIDGETS_PER_DASHBOARD_MAX, each of a fixed
 * type). Widgets are edited without end, so the state is kept as a snapshot every 100 events.
 */
export const dashboardDecider: Decider<DashboardState, DashboardCommand, DashboardEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
  snapshots: { tag: "dashboard-1", every: 100 },
};
