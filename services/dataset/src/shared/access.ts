import type { ResourceAccess } from "@argus/platform";

/** How the dataset service's resources are named in problems and which permission reads them. */
export const ACCESS = {
  dataset: { label: "dataset", read: "DATASET_READ" },
  experiment: { label: "experiment", read: "EXPERIMENT_READ" },
} as const satisfies Record<string, ResourceAccess>;

/** The first version of every dataset. */
export const FIRST_VERSION_NAME = "v1";
