import type { Client } from "@grpc/grpc-js";
import { ownCall, type CallContext, type CallCredential, callPeer } from "@argus/platform";
import { AnnotationConfigDirectoryService } from "@argus/proto/catalog/v1/config_directory";
import type { ConfigRules } from "./annotations.ts";

/** Annotation configs belong to the catalog; annotations of examples, runs and spans name them. */
export interface AnnotationConfigs {
  /** The configs of the space with these names (unknown ones left out), as the catalog has them now. */
  named(ctx: CallContext, spaceId: string, names: readonly string[]): Promise<ConfigRules[]>;
}

// The catalog answers at most 100 names a call.
const PER_CALL = 100;

/**
 * Asked of the catalog synchronously, as the calling service itself, in the caller's account:
 * an annotator needs no right to read annotation configs to use them.
 */
export function catalogAnnotationConfigs(channel: Client, self: CallCredential): AnnotationConfigs {
  return {
    async named(ctx, spaceId, names) {
      const chunks = Array.from({ length: Math.ceil(names.length / PER_CALL) }, (_, i) =>
        names.slice(i * PER_CALL, (i + 1) * PER_CALL),
      );
      const answers = await Promise.all(
        chunks.map((chunk) =>
          callPeer(
            channel,
            AnnotationConfigDirectoryService.resolveAnnotationConfigs,
            { accountId: ctx.principal.accountId, spaceId, names: chunk },
            ownCall(ctx, self),
          ),
        ),
      );
      return answers.flatMap((a) => a.configs);
    },
  };
}
