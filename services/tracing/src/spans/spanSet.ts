import { streamId } from "@argus/contracts";
import type { CommandScope, DomainEvent } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import { spaceMetadata } from "@argus/spaces";

/** A project's span set: the one stream of its span events. */
export const spansStream = (projectId: string): string => streamId("project_spans", projectId);

/**
 * Takes the span set's lock for the rest of the transaction (`lockSet`): orders the writers
 * that check spans and then write beside them (annotate, delete) on one project, so an
 * annotation never lands on a span a concurrent delete took.
 */
export const lockSpans = (scope: CommandScope, projectId: string): Promise<void> =>
  scope.lockSet(spansStream(projectId));

/**
 * A caller's events on a project's span set (the project's one stream of span events), with
 * the caller and the space as metadata; a write that matched nothing has none to append.
 */
export async function appendToSpans(
  scope: CommandScope,
  ctx: CallContext,
  project: { id: string; spaceId: string },
  events: readonly DomainEvent[],
): Promise<void> {
  if (events.length === 0) return;
  await scope.appendToSet(spansStream(project.id), events, spaceMetadata(ctx, project.spaceId));
}
