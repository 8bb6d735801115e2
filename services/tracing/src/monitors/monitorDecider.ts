import type { Decider } from "@argus/eventstore";
import type { MonitorEvent, MonitorSettings, MonitorStatus } from "@argus/contracts";
import { DomainError, type Lifecycle } from "@argus/platform";
import {
  checkSettings,
  checkType,
  settingsOfCreate,
  type MonitorChanges,
  type Outcome,
} from "./monitorRules.ts";

export type MonitorState = Lifecycle<{
  id: string;
  accountId: string;
  organizationId: string;
  spaceId: string;
  projectId: string;
  settings: MonitorSettings;
  /** When the settings last changed: an evaluation of older settings is stale. */
  settingsAt: string;
  monitorStatus: MonitorStatus;
  /** Whether the last notified change was TRIGGERED (its CLEARED is then due). */
  alerting: boolean;
}>;

export type MonitorCommand =
  | {
      type: "CreateMonitor";
      id: string;
      accountId: string;
      organizationId: string;
      spaceId: string;
      projectId: string;
      /** The public `type`: TRACING, or an ML type that is refused. */
      monitorType: string | undefined;
      changes: MonitorChanges;
      userId: string;
      now: Date;
    }
  | { type: "UpdateMonitor"; monitorType: string | undefined; changes: MonitorChanges; now: Date }
  | { type: "DeleteMonitor"; now: Date }
  /**
   * One evaluation, judged (monitorRules `assess`) on the settings of `settingsAt`. It changes
   * the status (an event) only when the status differs and the monitor is not in downtime.
   */
  | {
      type: "RecordEvaluation";
      evaluationId: string;
      settingsAt: string;
      outcome: Outcome;
      window: { start: Date; end: Date };
      evaluatedAt: Date;
    };

/** An evaluation computed on settings that changed since: it is dropped (and run again). */
export class StaleEvaluation extends Error {
  constructor() {
    super("the monitor's settings changed while it was evaluated");
  }
}

const notFound = () => new DomainError("resource-not-found", "monitor not found");

function decide(command: MonitorCommand, state: MonitorState): MonitorEvent[] {
  switch (command.type) {
    case "CreateMonitor": {
      if (state.status !== "none") throw new DomainError("resource-conflict", "monitor exists");
      checkType(command.monitorType);
      return [
        {
          type: "MonitorCreated",
          data: {
            id: command.id,
            account_id: command.accountId,
            organization_id: command.organizationId,
            space_id: command.spaceId,
            project_id: command.projectId,
            ...settingsOfCreate(command.changes),
            created_by_user_id: command.userId,
            created_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "UpdateMonitor": {
      if (state.status !== "live") throw notFound();
      if (command.monitorType !== undefined && command.monitorType !== "TRACING")
        throw new DomainError("validation-error", "type cannot be changed: it is TRACING");
      const settings = checkSettings({ ...state.settings, ...command.changes });
      return [
        {
          type: "MonitorUpdated",
          data: {
            id: state.id,
            project_id: state.projectId,
            space_id: state.spaceId,
            ...settings,
            updated_at: command.now.toISOString(),
          },
        },
      ];
    }
    case "DeleteMonitor":
      if (state.status !== "live") throw notFound();
      return [
        {
          type: "MonitorDeleted",
          data: {
            id: state.id,
            project_id: state.projectId,
            space_id: state.spaceId,
            deleted_at: command.now.toISOString(),
          },
        },
      ];
    case "RecordEvaluation": {
      if (state.status !== "live") throw notFound();
      if (command.settingsAt !== state.settingsAt) throw new StaleEvaluation();
      const { outcome } = command;
      // A downtime keeps the status (and so tells nobody anything).
      if (outcome.inDowntime || outcome.status === state.monitorStatus) return [];
      const s = state.settings;
      // Told once per alert: entering TRIGGERED, and leaving it for CLEARED. NO_DATA tells
      // nobody and keeps the alert as it was.
      const alertChanges =
        (outcome.status === "TRIGGERED" && !state.alerting) ||
        (outcome.status === "CLEARED" && state.alerting);
      return [
        {
          type: "MonitorStatusChanged",
          data: {
            id: state.id,
            account_id: state.accountId,
            organization_id: state.organizationId,
            space_id: state.spaceId,
            project_id: state.projectId,
            name: s.name,
            metric: s.metric,
            dimension: s.dimension,
            previous_status: state.monitorStatus,
            status: outcome.status,
            value: outcome.value,
            threshold: outcome.threshold,
            window_start: command.window.start.toISOString(),
            window_end: command.window.end.toISOString(),
            evaluated_at: command.evaluatedAt.toISOString(),
            evaluation_id: command.evaluationId,
            notify: s.notifications_enabled && alertChanges,
            channels: s.channels,
          },
        },
      ];
    }
  }
}

const settingsOf = (d: MonitorSettings): MonitorSettings => ({
  name: d.name,
  notes: d.notes,
  metric: d.metric,
  dimension: d.dimension,
  filters: d.filters,
  threshold: d.threshold,
  notifications_enabled: d.notifications_enabled,
  manual_evaluation_enabled: d.manual_evaluation_enabled,
  channels: d.channels,
  downtime: d.downtime,
  schedule: d.schedule,
  window_seconds: d.window_seconds,
  delay_seconds: d.delay_seconds,
});

function evolve(state: MonitorState, event: MonitorEvent): MonitorState {
  switch (event.type) {
    case "MonitorCreated":
      return {
        status: "live",
        id: event.data.id,
        accountId: event.data.account_id,
        organizationId: event.data.organization_id,
        spaceId: event.data.space_id,
        projectId: event.data.project_id,
        settings: settingsOf(event.data),
        settingsAt: event.data.created_at,
        monitorStatus: "NO_DATA",
        alerting: false,
      };
    case "MonitorUpdated":
      return state.status === "live"
        ? { ...state, settings: settingsOf(event.data), settingsAt: event.data.updated_at }
        : state;
    case "MonitorDeleted":
      return { status: "deleted" };
    case "MonitorStatusChanged": {
      if (state.status !== "live") return state;
      const to = event.data.status;
      const alerting = to === "TRIGGERED" ? true : to === "CLEARED" ? false : state.alerting;
      return { ...state, monitorStatus: to, alerting };
    }
  }
}

/**
 * A monitor: its settings (checked whole on every change) and its status, which only an
 * evaluation changes. A flapping monitor's stream grows with its changes of status, so its
 * state is kept as a snapshot every 50 events.
 */
export const monitorDecider: Decider<MonitorState, MonitorCommand, MonitorEvent> = {
  initialState: { status: "none" },
  evolve,
  decide,
  snapshots: { tag: "monitor-1", every: 50 },
};
