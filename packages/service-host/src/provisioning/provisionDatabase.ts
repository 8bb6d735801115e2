import type pg from "pg";
import { SERVICE_REGISTRY, connectClient } from "@argus/platform";
import { quoteSchema } from "@argus/eventstore";

export interface DatabaseRoles {
  /** A login role per registry service, owning its schema and nothing else. */
  services: Record<string, { role: string; password: string }>;
  /** The migration role: a member of every service role, so it migrates as their owner. */
  migrator: { role: string; password: string };
}

/** Role names for a deployment: `<prefix>_<service>` and `<prefix>_migrate`. */
export function databaseRoleNames(prefix: string): {
  services: Record<string, string>;
  migrator: string;
} {
  const role = (s: string) => `${prefix}_${s.replace(/-/g, "_")}`;
  return {
    services: Object.fromEntries(SERVICE_REGISTRY.map((d) => [d.name, role(d.name)])),
    migrator: role("migrate"),
  };
}

/** `url` with another user and password (the admin URL's host, port and database). */
export function urlAs(url: string, role: { role: string; password: string }): string {
  const u = new URL(url);
  u.username = role.role;
  u.password = role.password;
  return u.toString();
}

/**
 * Run once per database by whoever holds its superuser (the operator; `./argus up` and the test
 * stack locally): the roles, each schema owned by its service's role, and nothing more. No role
 * may create roles or databases, and none reaches another service's schema. Idempotent: roles
 * get their (possibly new) passwords, schemas made earlier by a superuser are handed over.
 */
export async function provisionDatabase(adminUrl: string, roles: DatabaseRoles): Promise<void> {
  const client = await connectClient({ connectionString: adminUrl });
  try {
    const login = async (r: { role: string; password: string }) => {
      const name = ident(r.role);
      const exists = await client.query("select 1 from pg_roles where rolname = $1", [r.role]);
      await client.query(
        `${exists.rowCount ? "alter" : "create"} role ${name} login nosuperuser nocreatedb nocreaterole noreplication password ${literal(r.password)}`,
      );
    };
    const database = ident(
      (await client.query<{ db: string }>("select current_database() as db")).rows[0]!.db,
    );
    await login(roles.migrator);
    await client.query(`grant connect on database ${database} to ${ident(roles.migrator.role)}`);
    for (const d of SERVICE_REGISTRY) {
      const r = roles.services[d.name];
      if (!r) throw new Error(`no database role for ${d.name}`);
      const role = ident(r.role);
      const schema = quoteSchema(d.schema);
      await login(r);
      await client.query(`grant connect on database ${database} to ${role}`);
      await client.query(`grant ${role} to ${ident(roles.migrator.role)}`);
      await client.query(`create schema if not exists ${schema} authorization ${role}`);
      await client.query(`alter schema ${schema} owner to ${role}`);
      await handOver(client, d.schema, r.role);
    }
  } finally {
    await client.end();
  }
}

/** Tables, views and free-standing sequences of a schema made by someone else become the role's. */
async function handOver(client: pg.Client, schema: string, role: string): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
        and pg_get_userbyid(c.relowner) <> $2
        and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i'))`,
    [schema, role],
  );
  for (const { name } of rows)
    await client.query(`alter table ${quoteSchema(schema)}.${ident(name)} owner to ${ident(role)}`);
}

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Removes the roles again (their databases must be gone): for throw-away test stacks. */
export async function dropDatabaseRoles(adminUrl: string, roles: DatabaseRoles): Promise<void> {
  const client = await connectClient({ connectionString: adminUrl });
  try {
    for (const r of [...Object.values(roles.services), roles.migrator])
      await client.query(`drop role if exists ${ident(r.role)}`);
  } finally {
    await client.end();
  }
}
