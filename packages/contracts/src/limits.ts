/**
 * Limits the API enforces, defined once. Deciders import them; the OpenAPI document names
 * them (`x-argus-limit: TAG_NAME_MAX` beside `type: string` or `type: array`) and the gateway
 * writes the number in as `maxLength` / `maxItems` when it loads the document, so the edge and
 * the decider can never disagree. Lengths count Unicode code points, as JSON Schema does, and
 * are measured on the text as sent: trimming only decides whether a name is blank.
 */
export const LIMITS = {
  TAG_NAME_MAX: 100,
  TAG_DESCRIPTION_MAX: 1000,
  TAG_IDS_MAX: 100,
  /** Labels of a CATEGORICAL annotation config (at least 2): the public API documents 2–500. */
  CATEGORICAL_VALUES_MAX: 500,
  /** An API key's name: the public API's bound (its SDK checks 256). */
  API_KEY_NAME_MAX: 256,
  SPACE_NAME_MAX: 255,
  SPACE_DESCRIPTION_MAX: 1000,
  ORGANIZATION_NAME_MAX: 255,
  ORGANIZATION_DESCRIPTION_MAX: 1000,
  DATASET_NAME_MAX: 255,
  DATASET_VERSION_NAME_MAX: 255,
  /** Examples per create, insert or update (spec 7) and ids per delete (spec 8). */
  EXAMPLES_PER_WRITE_MAX: 1000,
  /**
   * Examples per bulk upload (an Arrow Flight createDataset): streamed and staged as they
   * arrive, so the bound is the size of the one transaction that makes them visible.
   */
  EXAMPLES_PER_IMPORT_MAX: 2_000_000,
  /** One example's (or run's) fields as JSON text, in bytes, however it is written. */
  EXAMPLE_MAX_BYTES: 900 * 1024,
  /** Examples per page of a list or search. */
  EXAMPLES_PAGE_MAX: 500,
  NAME_FILTER_MAX: 255,
  EXPERIMENT_NAME_MAX: 255,
  /** Runs per experiment create or run insert. */
  RUNS_PER_WRITE_MAX: 1000,
  /** Runs per bulk upload (an Arrow Flight postExperimentData). */
  RUNS_PER_IMPORT_MAX: 2_000_000,
  /** Records per annotate request (examples or runs). */
  ANNOTATED_RECORDS_MAX: 1000,
  WEBHOOK_NAME_MAX: 255,
  /** Custom headers per webhook. */
  WEBHOOK_HEADERS_MAX: 20,
  WEBHOOK_TIMEOUT_MS_MIN: 1000,
  WEBHOOK_TIMEOUT_MS_MAX: 60000,
  WEBHOOK_TIMEOUT_MS_DEFAULT: 30000,
  /** Webhooks subscribed to one event of one source. */
  WEBHOOKS_PER_SOURCE_EVENT_MAX: 200,
  /**
   * Monitors and dashboards (the tracing service). The public API's models document none of
   * these but the name filters' 255; the rest are Argus's, each tested at its edges.
   */
  MONITOR_NAME_MAX: 255,
  MONITOR_NOTES_MAX: 5000,
  /** A dimension's name: a span field, an attribute key, an evaluation or annotation name. */
  MONITOR_DIMENSION_NAME_MAX: 255,
  MONITOR_FILTERS_MAX: 10,
  MONITOR_FILTER_VALUES_MAX: 100,
  MONITOR_FILTER_VALUE_MAX: 1000,
  /** Notification channels (email, integration, webhook) per monitor. */
  MONITOR_CHANNELS_MAX: 20,
  MONITOR_EMAIL_MAX: 254,
  /** Evaluation window, delay and cadence, in seconds: at least 1 (0 for the delay), 30 days. */
  MONITOR_WINDOW_SECONDS_MIN: 1,
  MONITOR_WINDOW_SECONDS_MAX: 2_592_000,
  MONITOR_DELAY_SECONDS_MAX: 2_592_000,
  MONITOR_CADENCE_SECONDS_MIN: 1,
  MONITOR_CADENCE_SECONDS_MAX: 2_592_000,
  /** A downtime repeats at most every 365 days; it lasts at least a second. */
  MONITOR_DOWNTIME_FREQUENCY_DAYS_MAX: 365,
  /** A dynamic threshold's multiplier (standard or median absolute deviations): (0, 100]. */
  MONITOR_MULTIPLIER_MAX: 100,
  DASHBOARD_NAME_MAX: 255,
  DASHBOARD_DESCRIPTION_MAX: 1000,
  WIDGETS_PER_DASHBOARD_MAX: 50,
  WIDGET_TITLE_MAX: 255,
  /** A TEXT widget's content. */
  WIDGET_TEXT_MAX: 10_000,
  /** Series of a LINE_CHART. */
  WIDGET_PLOTS_MAX: 10,
  /** Points of one series a widget's data answers at most (range ÷ granularity). */
  WIDGET_POINTS_MAX: 1000,
} as const;

export type LimitName = keyof typeof LIMITS;

/** Characters as JSON Schema's maxLength counts them (code points, not UTF-16 units). */
export const textLength = (s: string): number => [...s].length;
