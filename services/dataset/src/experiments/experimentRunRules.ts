import { LIMITS, type ExampleFields } from "@argus/contracts";
import { DomainError } from "@argus/platform";
import { EXAMPLE_MAX_BYTES } from "../examples/exampleRules.ts";
import { invalid, unprocessable } from "../shared/problemRules.ts";

export interface ParsedRun {
  exampleId: string | null;
  output: string;
  fields: ExampleFields;
  bytes: number;
}

/** Fields a run's own columns hold, or the service sets: not taken from the free-form part. */
const RESERVED = ["id", "example_id", "output", "created_at", "updated_at"] as const;

/**
 * 1 to 1000 runs, each an output and a JSON object of other fields; on a dataset every run
 * names one of its examples, without one none does; each fits one event.
 */
/** The columns of a bulk upload's other fields may not be any of the run's own (checked once). */
export function requireRunColumns(names: readonly string[]): void {
  for (const name of RESERVED)
    if (names.includes(name))
      throw unprocessable(
        `column ${JSON.stringify(name)} is reserved: runs must not set it among their other fields`,
      );
}

export function parseRuns(
  inputs: readonly { exampleId: string; output: string; fieldsJson: string }[],
  withDataset: boolean,
): ParsedRun[] {
  if (inputs.length < 1 || inputs.length > LIMITS.RUNS_PER_WRITE_MAX)
    throw unprocessable(`experiment_runs must hold 1 to ${LIMITS.RUNS_PER_WRITE_MAX} runs`);
  return inputs.map((input, i) => {
    let fields: unknown;
    try {
      fields = JSON.parse(input.fieldsJson || "{}");
    } catch {
      throw invalid(`experiment_runs[${i}] is not JSON`);
    }
    if (typeof fields !== "object" || fields === null || Array.isArray(fields))
      throw unprocessable(`experiment_runs[${i}] must be an object`);
    for (const name of RESERVED)
      if (Object.hasOwn(fields, name))
        throw unprocessable(`experiment_runs[${i}] must not set ${name} among its other fields`);
    if (withDataset && input.exampleId === "")
      throw unprocessable(`experiment_runs[${i}].example_id is required on a dataset's experiment`);
    if (!withDataset && input.exampleId !== "")
      throw unprocessable(
        `experiment_runs[${i}].example_id names an example, but the experiment has no dataset`,
      );
    const bytes = Buffer.byteLength(input.fieldsJson) + Buffer.byteLength(input.output);
    if (bytes > EXAMPLE_MAX_BYTES)
      throw new DomainError(
        "payload-too-large",
        `experiment_runs[${i}] is ${bytes} bytes; one run holds at most ${EXAMPLE_MAX_BYTES}`,
      );
    return {
      exampleId: input.exampleId || null,
      output: input.output,
      fields: fields as ExampleFields,
      bytes,
    };
  });
}
