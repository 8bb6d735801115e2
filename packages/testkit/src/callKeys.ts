import {
  callKeyEnv,
  generateCallKeys,
  parsePrivateKey,
  principalSigner,
  serviceCredential,
  type CallCredential,
  type CallKeyPair,
  type Principal,
} from "@argus/platform";

/** Fresh call key pairs for processes started in a test, and credentials made with them. */
export interface TestCallKeys {
  readonly pairs: Readonly<Record<string, CallKeyPair>>;
  /** The call-key variables of one process (registry `callKeysOf`). */
  env(name: string): Record<string, string>;
  /** `principal` as the gateway signs it, at the time of each call. */
  caller(principal: Principal): CallCredential;
  /** A process calling on its own behalf (the gateway's Authenticate, the catalog's lookups). */
  service(name: string): CallCredential;
}

export function testCallKeys(): TestCallKeys {
  const pairs = generateCallKeys();
  const key = (name: string) => {
    const pair = pairs[name];
    if (!pair) throw new Error(`${name} signs no calls: it has no key pair`);
    return parsePrivateKey(pair.privateKey);
  };
  const gateway = principalSigner(key("gateway"));
  return {
    pairs,
    env: (name) => callKeyEnv(name, pairs),
    caller: (principal) => ({ attach: (md, path) => gateway.sign(principal).attach(md, path) }),
    service: (name) => serviceCredential(name, key(name)),
  };
}
