import { streamId } from "@argus/contracts";
import type { CommandScope, DomainEvent } from "@argus/eventstore";
import type { CallContext } from "@argus/platform";
import { spaceMetadata } from "@argus/spaces";

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
  await scope.appendToSet(
    streamId("project_spans", project.id),
    events,
    spaceMetadata(ctx, project.spaceId),
  );
}
