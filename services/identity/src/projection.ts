import { projector } from "@argus/eventstore";
import type { IdentityEvent } from "@argus/contracts";
import { apiKeyProjections } from "./apiKeys/apiKeyProjection.ts";
import { accountProjections } from "./initialization/accountProjection.ts";
import { organizationProjections } from "./organizations/organizationProjection.ts";
import { restrictionProjections } from "./resourceRestrictions/restrictionProjection.ts";
import { roleBindingProjections } from "./roleBindings/roleBindingProjection.ts";
import { roleProjections } from "./roles/roleProjection.ts";
import { spaceProjections } from "./spaces/spaceProjection.ts";
import { userProjections } from "./users/userProjection.ts";

/** Identity's inline projections, one per event type (the compiler checks none is missing). */
export const project = projector<IdentityEvent>("identity", {
  ...accountProjections,
  ...organizationProjections,
  ...spaceProjections,
  ...userProjections,
  ...roleProjections,
  ...roleBindingProjections,
  ...restrictionProjections,
  ...apiKeyProjections,
});
