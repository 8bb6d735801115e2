import { ACCESS } from "../domain/access.ts";
import { annotationQueueDecider } from "../domain/annotationQueue.ts";
import { findQueue } from "../projections/annotationQueueRows.ts";

/** Annotation queues: one stream each, for the queue and its records. */
export const annotationQueueKind = {
  aggregate: "annotation_queue",
  decider: annotationQueueDecider,
  access: ACCESS.annotationQueue,
  find: findQueue,
} as const;
