import { projector } from "@argus/eventstore";
import type { DatasetServiceEvent } from "@argus/contracts";
import { datasetProjections } from "./datasets/datasetProjection.ts";
import { exampleProjections } from "./examples/exampleProjection.ts";
import { experimentProjections } from "./experiments/experimentProjection.ts";

/** The dataset service's inline projections, in the transaction of their events. */
export const project = projector<DatasetServiceEvent>("dataset", {
  ...datasetProjections,
  ...exampleProjections,
  ...experimentProjections,
});
