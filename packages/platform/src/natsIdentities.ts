import { SERVICE_REGISTRY, type ServiceDescription } from "./registry.ts";

/** What one NATS user may publish and subscribe to. */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

export interface NatsIdentity {
  user: string;
  permissions: NatsPermissions;
}

/** The NATS user that creates streams and consumers (the migration step), and nothing else runs as. */
export const NATS_MANAGER = "manager";

/** Each identity its own reply subjects, so no user can read another's PubAcks or replies. */
export const inboxPrefixOf = (user: string): string => `_INBOX_${user.replace(/-/g, "_")}`;

/**
 * A service's rights, derived from its registry entry alone: publish its own events
 * (`<root>.<name>.>`, the relay) and pull and acknowledge its declared consumers, nothing else.
 * Publishing another service's subjects, creating streams or consumers, or reading a durable it
 * did not declare is refused by the server.
 */
export function serviceNatsIdentity(
  d: ServiceDescription,
  o: { root: string; stream: string },
): NatsIdentity {
  const pulls = (d.consumes ?? []).flatMap((c) => [
    `$JS.API.CONSUMER.INFO.${o.stream}.${c.durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${o.stream}.${c.durable}`,
    `$JS.ACK.${o.stream}.${c.durable}.>`,
  ]);
  return {
    user: d.name,
    permissions: {
      publish: { allow: [`${o.root}.${d.name}.>`, ...pulls] },
      subscribe: { allow: [`${inboxPrefixOf(d.name)}.>`] },
    },
  };
}

/** Every identity of a deployment: one per registry service, plus the manager. */
export function natsIdentities(o: { root: string; stream: string }): NatsIdentity[] {
  return [
    ...SERVICE_REGISTRY.map((d) => serviceNatsIdentity(d, o)),
    {
      user: NATS_MANAGER,
      permissions: {
        publish: { allow: ["$JS.API.>"] },
        subscribe: { allow: [`${inboxPrefixOf(NATS_MANAGER)}.>`] },
      },
    },
  ];
}

/**
 * The `authorization` block of a nats-server configuration for these identities. With it the
 * server refuses connections without credentials. Passwords are given per user.
 */
export function natsAuthorizationConfig(
  identities: readonly NatsIdentity[],
  passwords: Readonly<Record<string, string>>,
): string {
  const users = identities.map((i) => {
    const password = passwords[i.user];
    if (!password) throw new Error(`no NATS password for ${i.user}`);
    return {
      user: i.user,
      password,
      permissions: i.permissions,
    };
  });
  // nats-server's configuration format accepts JSON values.
  return `authorization {\n  users: ${JSON.stringify(users, null, 2)}\n}\n`;
}
