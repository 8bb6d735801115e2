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
import { auditConsumer } from "./adapters/auditConsumer.ts";
import { apiKeyChanges } from "./commands/apiKeyChanges.ts";
import { apiKeyCreation } from "./commands/apiKeys.ts";
import { initialize } from "./commands/initialize.ts";
import { invitationCommands } from "./commands/invitations.ts";
import { membershipCommands } from "./commands/memberships.ts";
import { organizationCommands } from "./commands/organizations.ts";
import { restrictionCommands } from "./commands/restrictions.ts";
import { roleBindingCommands } from "./commands/roleBindings.ts";
import { roleCommands } from "./commands/roles.ts";
import { spaceCommands } from "./commands/spaces.ts";
import { userCommands } from "./commands/users.ts";
import { identityConfigSpec } from "./config.ts";
import { project } from "./projections/index.ts";
import { syncPredefinedRoles } from "./projections/predefinedRoles.ts";
import { apiKeyQueries } from "./queries/apiKeys.ts";
import { auditQueries } from "./queries/auditLogs.ts";
import { authenticateHandler } from "./queries/authenticate.ts";
import { organizationQueries } from "./queries/organizations.ts";
import { restrictionQueries } from "./queries/restrictions.ts";
import { roleBindingQueries } from "./queries/roleBindings.ts";
import { roleQueries } from "./queries/roles.ts";
import { spaceQueries } from "./queries/spaces.ts";
import { userQueries } from "./queries/users.ts";

/** What identity's handlers are built from: commands change state only through `commands`. */
export interface IdentityDeps {
  pool: Pool;
  commands: CommandHandler;
  pepper: string;
}

const handlerDeps = (d: ServiceDeps<typeof identityConfigSpec>): IdentityDeps => ({
  pool: d.pool,
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
        ...organizationQueries(deps),
        ...organizationCommands(deps),
        ...spaceQueries(deps),
        ...spaceCommands(deps),
        ...membershipCommands(deps),
        ...userQueries(deps),
        ...userCommands(deps),
        ...invitationCommands(deps),
        ...roleQueries(deps),
        ...roleCommands(deps),
        ...roleBindingQueries(deps),
        ...roleBindingCommands(deps),
        ...restrictionQueries(deps),
        ...restrictionCommands(deps),
      }),
      bindService(ApiKeyServiceService, {
        ...apiKeyQueries(deps),
        ...apiKeyCreation(deps),
        ...apiKeyChanges(deps),
      }),
      bindService(AuditServiceService, auditQueries(deps)),
    ];
  },
});
