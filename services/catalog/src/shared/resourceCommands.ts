import type { Pool } from "pg";
import type { Aggregate } from "@argus/contracts";
import { streamId } from "@argus/contracts";
import type {
  CommandHandler,
  CommandInput,
  Decider,
  Decision,
  DomainEvent,
} from "@argus/eventstore";
import { uuidv7, type CallContext, type Permission, type ResourceAccess } from "@argus/platform";
import {
  authorized,
  requireCreatable,
  spaceMetadata,
  type RowPlace,
  type SpaceRow,
  type Spaces,
} from "@argus/spaces";

/** One kind of space-owned resource: its stream, its decider, how it is found and read. */
export interface ResourceKind<Row extends SpaceRow, S, C, E extends DomainEvent> {
  aggregate: Aggregate<"catalog">;
  decider: Decider<S, C, E>;
  access: ResourceAccess;
  find(pool: Pool, id: string): Promise<Row | undefined>;
  /** Where a row lives for authorization (default: its account and space). */
  place?: (row: Row) => RowPlace;
}

type Conflicts = Readonly<Record<string, string>>;

/**
 * The one shape of a command on a space-owned catalog resource: authorize (the projection
 * may be read for that: a resource's space never changes), then read, fold, decide, append
 * and project in one transaction. A resource deleted in between is the decider's 404.
 */
export function resourceCommands<Row extends SpaceRow, S, C, E extends DomainEvent>(
  deps: { pool: Pool; spaces: Spaces; commands: CommandHandler },
  kind: ResourceKind<Row, S, C, E>,
) {
  /** Runs `command` on the resource's stream, attributed to the caller, in its space. */
  const run = (
    ctx: CallContext,
    id: string,
    spaceId: string,
    command: CommandInput<S, C>,
    conflicts?: Conflicts,
  ): Promise<Decision<S, E>> =>
    deps.commands.handle(
      streamId(kind.aggregate, id),
      kind.decider,
      command,
      spaceMetadata(ctx, spaceId),
      { conflicts: conflicts ?? {} },
    );

  /** The resource as the caller may act on it with `permission` (404 / 403 otherwise). */
  const load = async (ctx: CallContext, id: string, permission?: Permission): Promise<Row> =>
    authorized(
      deps.spaces,
      ctx,
      await kind.find(deps.pool, id),
      kind.access,
      permission,
      kind.place,
    );

  return {
    run,
    /** Creates one in a space the caller sees and may create in: its new id and events. */
    async create(
      ctx: CallContext,
      spaceId: string,
      permission: Permission,
      command: (id: string) => CommandInput<S, C> | Promise<CommandInput<S, C>>,
      conflicts?: Conflicts,
    ): Promise<{ id: string; events: readonly E[] }> {
      await requireCreatable(deps.spaces, ctx, spaceId, permission);
      const id = uuidv7();
      const { events } = await run(ctx, id, spaceId, await command(id), conflicts);
      return { id, events };
    },

    /** The resource as the caller may act on it with `permission` (404 / 403 otherwise). */
    load,

    /** Runs `command` on a resource the caller may change with `permission`; answers its row. */
    async change(
      ctx: CallContext,
      id: string,
      permission: Permission,
      command: CommandInput<S, C>,
      conflicts?: Conflicts,
    ): Promise<Row> {
      const row = await load(ctx, id, permission);
      await run(ctx, row.id, row.space_id, command, conflicts);
      return row;
    },
  };
}
