import { randomBytes } from "node:crypto";
import {
  GATEWAY,
  NATS_MANAGER,
  SERVICE_REGISTRY,
  callKeyEnv,
  envPrefix,
  natsAuthorizationConfig,
  natsIdentities,
  type CallKeyPair,
} from "@argus/platform";
import { uniqueName } from "./uniqueName.ts";

/**
 * What the processes of one stack log in with, whether they run as processes (stack.ts) or
 * containers (containerStack.ts): the database's roles, the NATS users, the call keys, the
 * shared secrets. Each process gets only its own credentials (`processCredentials`).
 */

export interface Credentials {
  user: string;
  pass: string;
}

export interface DatabaseRoles {
  rolePrefix: string;
  /** By registry service name, and "migrate". */
  passwords: Readonly<Record<string, string>>;
}

export const secret = (): string => randomBytes(32).toString("base64url");

/** Fresh role names (unique, so stacks may share a server) and passwords. */
export function freshDatabaseRoles(): DatabaseRoles {
  return {
    rolePrefix: uniqueName("r").toLowerCase().replace(/-/g, "_"),
    passwords: Object.fromEntries(
      [...SERVICE_REGISTRY.map((d) => d.name), "migrate"].map((n) => [n, secret()]),
    ),
  };
}

function roleOf(database: DatabaseRoles, name: string): string {
  return `${database.rolePrefix}_${name.replace(/-/g, "_")}`;
}

/** `url` as another user (same host, port and database). */
function urlAs(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/**
 * The initial admin's e-mail in every test stack: fixtures name a user of the account with it
 * (an annotation queue's first annotator) without looking one up.
 */
export const INIT_ADMIN_EMAIL = "admin@argus.local";

/** The shared secrets and the initial admin (key and e-mail) every process of a stack is given. */
export function stackSecrets(apiKey: string): Record<string, string> {
  return {
    ARGUS_INIT_ADMIN_EMAIL: INIT_ADMIN_EMAIL,
    ARGUS_API_KEY_PEPPER: secret(),
    ARGUS_SECRETS_KEY: secret(),
    ARGUS_CURSOR_SECRET: secret(),
    ARGUS_INIT_API_KEY: apiKey,
  };
}

/** Each registry identity with a fresh password, and the server's `authorization` block. */
export function natsAuthorization(o: { root: string; stream: string }): {
  users: Record<string, Credentials>;
  config: string;
} {
  const identities = natsIdentities(o);
  const passwords = Object.fromEntries(identities.map((i) => [i.user, secret()]));
  return {
    users: Object.fromEntries(
      identities.map((i) => [i.user, { user: i.user, pass: passwords[i.user]! }]),
    ),
    config: natsAuthorizationConfig(identities, passwords),
  };
}

/** scripts/provision.ts's environment: the superuser makes every role. */
export function provisionEnv(
  superuserUrl: string,
  database: DatabaseRoles,
): Record<string, string> {
  return {
    DATABASE_URL: superuserUrl,
    ARGUS_DB_ROLE_PREFIX: database.rolePrefix,
    ...Object.fromEntries(
      Object.entries(database.passwords).map(([n, pw]) => [
        `ARGUS_DB_PASSWORD_${envPrefix(n)}`,
        pw,
      ]),
    ),
  };
}

/** scripts/migrate.ts's environment: the migration role, and the NATS manager when there is one. */
export function migrateEnv(
  superuserUrl: string,
  database: DatabaseRoles,
  natsUsers: Readonly<Record<string, Credentials>> | undefined,
): Record<string, string> {
  const manager = natsUsers?.[NATS_MANAGER];
  return {
    DATABASE_URL: urlAs(superuserUrl, roleOf(database, "migrate"), database.passwords.migrate!),
    ARGUS_DB_ROLE_PREFIX: database.rolePrefix,
    ...(manager ? { NATS_USER: manager.user, NATS_PASSWORD: manager.pass } : {}),
  };
}

/**
 * One process's own credentials: a service its database role, NATS identity and call keys; the
 * gateway no database role, its NATS identity (principal-cache invalidations only) and its call
 * key (the private key that signs callers' principals).
 */
export function processCredentials(
  name: string,
  o: {
    superuserUrl: string;
    database: DatabaseRoles;
    natsUsers: Readonly<Record<string, Credentials>> | undefined;
    callKeys: Readonly<Record<string, CallKeyPair>>;
  },
): Record<string, string> {
  const user = o.natsUsers?.[name];
  return {
    DATABASE_URL:
      name === GATEWAY.name
        ? ""
        : urlAs(o.superuserUrl, roleOf(o.database, name), o.database.passwords[name]!),
    ...(user ? { NATS_USER: user.user, NATS_PASSWORD: user.pass } : {}),
    ...callKeyEnv(name, o.callKeys),
  };
}
