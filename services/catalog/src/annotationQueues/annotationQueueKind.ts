import { ACCESS } from "../shared/access.ts";
import { annotationQueueDecider } from "./annotationQueueDecider.ts";
import { findQueue } from "./annotationQueueRows.ts";

/** Annotation queues: one stream each, for the queue and its records. */
export const annotationQueueKind = {
  aggregate: "annotation_queue",
  decider: annotationQueueDecider,
  access: ACCESS.annotationQueue,
  find: findQueue,
} as const;
