import type { Target } from "./load.ts";

/** A subject measured side by side with a baseline doing the least possible same work. */
export interface Benchmark {
  name: string;
  subject: Target;
  baseline: Target;
  /** Stops whatever the benchmark started. */
  stop(): Promise<void>;
}
