/** A Postgres or NATS server the testkit started, found, or was given. */
export interface RunningServer {
  url: string;
  /** For the one-line startup report, e.g. "local postgres 15". */
  description: string;
  stop(): Promise<void>;
}

/**
 * A server the testkit runs as a process of its own, which fault tests take away and bring
 * back: same port, same data.
 */
export interface LocalServer extends RunningServer {
  /** The server process's id (SIGSTOP/SIGCONT it to freeze it). */
  pid(): number;
  /**
   * Ends it at once, as a crash would: nats-server by SIGKILL, Postgres by an immediate
   * shutdown (`pg_ctl stop -m immediate`, SIGQUIT: no checkpoint, recovery at the next start).
   */
  crash(): Promise<void>;
  /** Starts it again on the same port with the same data; resolves once it answers. */
  restart(): Promise<void>;
}
