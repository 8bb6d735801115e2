import type { Client } from "@grpc/grpc-js";
import { DirectoryServiceService } from "@argus/proto/identity/v1/directory";
import {
  DomainError,
  ownCall,
  type CallContext,
  type CallCredential,
  callPeer,
} from "@argus/platform";
import type { Annotator } from "@argus/contracts";
import { identityAnnotators } from "@argus/spaces";

/** Users belong to identity; queues name annotators by e-mail and show who annotated. */
export interface QueueUsers {
  /** Active users of the caller's account with exactly these e-mails; an unknown one is 422. */
  byEmails(ctx: CallContext, emails: string[]): Promise<Annotator[]>;
  /** The calling user as an annotator (e-mail empty for service accounts). */
  caller(ctx: CallContext): Promise<Annotator>;
}

/**
 * Asks identity's DirectoryService as the catalog itself (`self`), in the caller's account:
 * resolving e-mails is the catalog's own lookup, not the caller listing users (who needs no
 * USER_READ to name annotators), and the catalog cannot speak for a caller other than as
 * received, so it never claims rights the caller lacks.
 */
export function identityQueueUsers(channel: Client, self: CallCredential): QueueUsers {
  const resolve = async (ctx: CallContext, q: { emails?: string[]; ids?: string[] }) => {
    const res = await callPeer(
      channel,
      DirectoryServiceService.resolveUsers,
      { accountId: ctx.principal.accountId, emails: q.emails ?? [], ids: q.ids ?? [] },
      ownCall(ctx, self),
    );
    return res.users;
  };
  return {
    async byEmails(ctx, emails) {
      const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
      if (wanted.length === 0) return [];
      // DirectoryService answers at most 100 e-mails per call.
      const chunks = Array.from({ length: Math.ceil(wanted.length / 100) }, (_, i) =>
        wanted.slice(i * 100, i * 100 + 100),
      );
      const users = (await Promise.all(chunks.map((emails) => resolve(ctx, { emails })))).flat();
      const found = wanted.map((email) =>
        users.find((u) => u.active && u.email.toLowerCase() === email),
      );
      const missing = wanted.filter((_, i) => !found[i]);
      if (missing.length > 0)
        throw new DomainError(
          "unprocessable-entity",
          `no active user with e-mail ${missing.map((m) => JSON.stringify(m)).join(", ")}`,
        );
      return found.map((u) => ({ user_id: u!.id, email: u!.email }));
    },
    caller: identityAnnotators(channel, self).caller,
  };
}
