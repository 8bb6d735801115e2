/**
 * The callers the fuzzer acts as: the account admin, and a member of another space only (a
 * SERVICE key the admin creates through the API, MEMBER in a private space of its own); and an
 * outsider made the same way in a third space, the peer object-level authorization judges the
 * member's objects against. (Not the admin: an account admin may read every object, and writes
 * into any space, so objects are told apart by space, not by who made them.) The fuzzer revokes and refreshes keys it
 * finds, its own included; `key()` therefore always answers a key that works now, minting a
 * new one through the API when the last one died, and counts how often that happened.
 */
export interface Identity {
  name: string;
  key(): Promise<string>;
  replaced: number;
}

interface Json {
  [k: string]: unknown;
}

interface Api {
  call(
    key: string,
    method: string,
    path: string,
    body?: Json,
  ): Promise<{ status: number; body: Json }>;
}

function api(baseUrl: string): Api {
  return {
    async call(key, method, path, body) {
      const res = await fetch(baseUrl + path, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json().catch(() => ({}))) as Json };
    },
  };
}

const ok = async (a: Api, key: string, method: string, path: string, body?: Json) => {
  const res = await a.call(key, method, path, body);
  if (res.status >= 300)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

const works = async (a: Api, key: string): Promise<boolean> =>
  (await a.call(key, "GET", "/v2/spaces?limit=1")).status === 200;

/** An identity that keeps the key it has while it works and takes a fresh one from `mint` when not. */
function renewing(name: string, a: Api, first: string, mint: () => Promise<string>): Identity {
  let current = first;
  let pending: Promise<string> | undefined;
  const identity: Identity = {
    name,
    replaced: 0,
    key() {
      pending ??= (async () => {
        if (!(await works(a, current))) {
          current = await mint();
          identity.replaced++;
        }
        return current;
      })().finally(() => (pending = undefined));
      return pending;
    },
  };
  return identity;
}

const RESERVE = 20;

export interface FuzzIdentities {
  /** The admin, the member, and the outsider (a member of yet another space). */
  identities: Identity[];
  orgId: string;
  /** The private space the member works in (the admin's is the first space of the account). */
  memberSpaceId: string;
}

export async function fuzzIdentities(baseUrl: string, initKey: string): Promise<FuzzIdentities> {
  const a = api(baseUrl);
  // Spare admin keys made up front: a dead admin key is replaced by the next spare that works,
  // and the spares are topped up by whichever key still works.
  const userKey = async (key: string) =>
    String(
      (await ok(a, key, "POST", "/v2/api-keys", { key_type: "USER", name: "fuzz admin" })).key,
    );
  const spares: string[] = [];
  for (let i = 0; i < RESERVE; i++) spares.push(await userKey(initKey));
  const admin = renewing("admin", a, await userKey(initKey), async () => {
    while (spares.length > 0) {
      const spare = spares.shift()!;
      if (await works(a, spare)) {
        while (spares.length < RESERVE / 2) spares.push(await userKey(spare));
        return spare;
      }
    }
    throw new Error("every admin key was revoked; the fuzzer cannot act as the admin any more");
  });

  const orgId = String(
    ((await ok(a, initKey, "GET", "/v2/organizations")).organizations as Json[])[0]!.id,
  );
  const newSpace = async (key: string, name: string) =>
    String(
      (
        await ok(a, key, "POST", "/v2/spaces", {
          name: `fuzz ${name} ${Date.now()}`,
          organization_id: orgId,
          is_private: true,
        })
      ).id,
    );
  /** A SERVICE key's identity, MEMBER in a private space of its own, minted by the admin. */
  const spaceMember = async (name: string) => {
    const space = { id: await newSpace(initKey, name) };
    const serviceKey = (key: string) =>
      a.call(key, "POST", "/v2/api-keys", {
        key_type: "SERVICE",
        name: `fuzz ${name}`,
        organizations: [
          { org_id: orgId, spaces: [{ space_id: space.id, role: { name: "MEMBER" } }] },
        ],
      });
    const mint = async () => {
      const adminKey = await admin.key();
      let created = await serviceKey(adminKey);
      // The admin's run may have deleted the space: a fresh one then, like the first.
      if (created.status === 404 || created.status === 422) {
        space.id = await newSpace(adminKey, name);
        created = await serviceKey(adminKey);
      }
      if (created.status !== 201) throw new Error(`cannot mint a ${name} key: ${created.status}`);
      return String(created.body.key);
    };
    return { identity: renewing(name, a, await mint(), mint), space };
  };
  const member = await spaceMember("member");
  const outsider = await spaceMember("outsider");
  return {
    identities: [admin, member.identity, outsider.identity],
    orgId,
    memberSpaceId: member.space.id,
  };
}
