import { projector } from "@argus/eventstore";
import type { IdentityEvent } from "@argus/contracts";
import { accessProjections } from "./roleBindings/roleBindingProjection.ts";
import { apiKeyProjections } from "./apiKeys/apiKeyProjection.ts";
import { tenancyProjections } from "./spaces/spaceProjection.ts";
import { userProjections } from "./users/userProjection.ts";

/** Identity's inline projections, one per event type (the compiler checks none is missing). */
export const project = projector<IdentityEvent>("identity", {
  ...tenancyProjections,
  ...userProjections,
  ...accessProjections,
  ...apiKeyProjections,
});
