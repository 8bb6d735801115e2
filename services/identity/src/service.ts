import {
  defineService,
  loadMigrations,
  migrationsDirOf,
  type CommandHandler,
  type ServiceDeps,
} from "@argus/eventstore";
import { bindService } from "@argus/platform";
import { IdentityServiceService } from "@argus/proto/identity/v1";
import { ApiKeyServiceService } from "@argus/proto/identity/v1/api_keys";
import { AuditServiceService } from "@argus/proto/identity/v1/audit";
import type { Pool } from "pg";
import { apiKeyHandlers } from "./apiKeys.ts";
import { auditHandlers } from "./audit.ts";
import { auditConsumer } from "./auditConsumer.ts";
import { authenticateHandler } from "./authenticate.ts";
import { identityConfigSpec } from "./config.ts";
import { initialize } from "./initialize.ts";
import { lifecycleHandlers } from "./lifecycle.ts";
import { membershipHandlers } from "./memberships.ts";
import { organizationHandlers } from "./organizations.ts";
import { syncPredefinedRoles } from "./predefinedRoles.ts";
import { project } from "./projection.ts";
import { restrictionHandlers } from "./restrictions.ts";
import { roleBindingHandlers } from "./roleBindings.ts";
import { roleHandlers } from "./roles.ts";
import { spaceHandlers } from "./spaces.ts";
import { userHandlers } from "./users.ts";

/** What identity's handlers are built from. */
export interface IdentityDeps {
  pool: Pool;
  store: ServiceDeps<typeof identityConfigSpec>["store"];
  commands: CommandHandler;
  pepper: string;
}

const handlerDeps = (d: ServiceDeps<typeof identityConfigSpec>): IdentityDeps => ({
  pool: d.pool,
  store: d.store,
  commands: d.commands,
  pepper: d.config.ARGUS_API_KEY_PEPPER,
});

export const identity = defineService("identity", {
  config: identityConfigSpec,
  migrations: loadMigrations(migrationsDirOf("identity")),
  project,
  consumers: (d) => [auditConsumer(d.config.subjectRoot)],
  async init(d) {
    await syncPredefinedRoles(d.pool);
    const c = d.config;
    if (c.ARGUS_INIT_API_KEY)
      await initialize(
        { ...handlerDeps(d), logger: d.logger },
        {
          orgName: c.ARGUS_INIT_ORG_NAME,
          spaceName: c.ARGUS_INIT_SPACE_NAME,
          adminEmail: c.ARGUS_INIT_ADMIN_EMAIL,
          adminName: c.ARGUS_INIT_ADMIN_NAME,
          apiKey: c.ARGUS_INIT_API_KEY,
        },
      );
  },
  grpc(d) {
    const deps = handlerDeps(d);
    return [
      bindService(IdentityServiceService, {
        authenticate: authenticateHandler(deps),
        ...organizationHandlers(deps),
        ...spaceHandlers(deps),
        ...lifecycleHandlers(deps),
        ...membershipHandlers(deps),
        ...userHandlers(deps),
        ...roleHandlers(deps),
        ...roleBindingHandlers(deps),
        ...restrictionHandlers(deps),
      }),
      bindService(ApiKeyServiceService, apiKeyHandlers(deps)),
      bindService(AuditServiceService, auditHandlers(deps)),
    ];
  },
});
