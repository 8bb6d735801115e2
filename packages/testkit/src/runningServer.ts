/** A Postgres or NATS server the testkit started, found, or was given. */
export interface RunningServer {
  url: string;
  /** For the one-line startup report, e.g. "local postgres 15". */
  description: string;
  stop(): Promise<void>;
}
