import { GATEWAY, SERVICE_REGISTRY, type ServiceDescription } from "./registry.ts";

/** What one NATS user may publish and subscribe to (nats-server's `permissions` block). */
interface NatsPermissions {
  publish: { allow?: string[]; deny?: string[] };
  subscribe: { allow: string[] };
  /** May publish to the reply subject of a message it received, at most `max` times. */
  allow_responses?: { max: number };
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
 * Where principal-cache invalidations go: core NATS, outside the events stream's `<root>.>`
 * (JetStream would otherwise store every one), and per subject root like the events, so
 * deployments sharing a server never invalidate each other.
 */
export const principalInvalidationSubject = (root: string): string =>
  `${root}-principals.invalidate`;

/**
 * A service's rights, derived from its registry entry alone: publish its own events
 * (`<root>.<name>.>`, the relay) and pull and acknowledge its declared consumers, nothing else.
 * Publishing another service's subjects, creating streams or consumers, or reading a durable it
 * did not declare is refused by the server.
 */
function serviceNatsIdentity(
  d: ServiceDescription,
  o: { root: string; stream: string },
): NatsIdentity {
  const pulls = (d.consumes ?? []).flatMap((c) => [
    `$JS.API.CONSUMER.INFO.${o.stream}.${c.durable}`,
    `$JS.API.CONSUMER.MSG.NEXT.${o.stream}.${c.durable}`,
    `$JS.ACK.${o.stream}.${c.durable}.>`,
  ]);
  const invalidations = d.invalidatesPrincipals ? [principalInvalidationSubject(o.root)] : [];
  return {
    user: d.name,
    permissions: {
      publish: { allow: [`${o.root}.${d.name}.>`, ...pulls, ...invalidations] },
      subscribe: { allow: [`${inboxPrefixOf(d.name)}.>`] },
    },
  };
}

/**
 * The gateway's rights: receive principal-cache invalidations and answer each once (its
 * acknowledgement goes to the sender's inbox, which `allow_responses` alone opens), nothing
 * else: it publishes no event and reads no one's replies.
 */
function gatewayNatsIdentity(o: { root: string }): NatsIdentity {
  return {
    user: GATEWAY.name,
    permissions: {
      publish: { deny: [">"] },
      subscribe: { allow: [principalInvalidationSubject(o.root)] },
      allow_responses: { max: 1 },
    },
  };
}

/** Every identity of a deployment: one per registry service, the gateway's and the manager's. */
export function natsIdentities(o: { root: string; stream: string }): NatsIdentity[] {
  return [
    ...SERVICE_REGISTRY.map((d) => serviceNatsIdentity(d, o)),
    ...(GATEWAY.cachesPrincipals ? [gatewayNatsIdentity(o)] : []),
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
