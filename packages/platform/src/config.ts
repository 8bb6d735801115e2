/** One environment variable: how to read it, and what to say when it is wrong. */
export interface EnvVar<T> {
  readonly describe: string;
  readonly parse: (raw: string) => T;
  readonly default?: T;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

type Spec = Record<string, EnvVar<unknown>>;
export type ConfigOf<S extends Spec> = { [K in keyof S]: S[K] extends EnvVar<infer T> ? T : never };

/** Reads every variable of the spec at once so a bad deployment is told all its mistakes together. */
export function loadConfig<S extends Spec>(
  spec: S,
  env: NodeJS.ProcessEnv = process.env,
): ConfigOf<S> {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(spec)) {
    const raw = env[name];
    if (raw === undefined || raw === "") {
      if ("default" in v) out[name] = v.default;
      else problems.push(`${name} is required (${v.describe})`);
      continue;
    }
    try {
      out[name] = v.parse(raw);
    } catch (e) {
      problems.push(`${name}: ${(e as Error).message} (${v.describe})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as ConfigOf<S>;
}

export const str = (describe: string, dflt?: string): EnvVar<string> => ({
  describe,
  parse: (raw) => raw,
  ...(dflt === undefined ? {} : { default: dflt }),
});

export const optionalStr = (describe: string): EnvVar<string | undefined> => ({
  describe,
  parse: (raw) => raw,
  default: undefined,
});

export const int = (
  describe: string,
  dflt: number | undefined,
  min: number,
  max: number,
): EnvVar<number> => ({
  describe,
  parse: (raw) => {
    if (!/^-?\d+$/.test(raw.trim()))
      throw new Error(`expected an integer, got ${JSON.stringify(raw)}`);
    const n = Number(raw);
    if (n < min || n > max) throw new Error(`expected ${min}..${max}, got ${n}`);
    return n;
  },
  ...(dflt === undefined ? {} : { default: dflt }),
});

export const url = (
  describe: string,
  protocols: readonly string[],
  dflt?: string,
): EnvVar<string> => ({
  describe,
  parse: (raw) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new Error("not a URL");
    }
    if (!protocols.includes(u.protocol))
      throw new Error(`expected a ${protocols.join(" or ")} URL`);
    return raw;
  },
  ...(dflt === undefined ? {} : { default: dflt }),
});

/**
 * NATS servers: one URL, or several separated by commas (`nats://a:4222,nats://b:4222`, as a
 * cluster's are given), each `nats:` or `tls:`. A client is handed every one: it connects to
 * whichever answers and learns the rest of the cluster from it.
 */
export function parseNatsServers(raw: string): string[] {
  const servers = raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (servers.length === 0) throw new Error("no server URL");
  for (const s of servers) {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw new Error(`${JSON.stringify(s)} is not a URL`);
    }
    if (u.protocol !== "nats:" && u.protocol !== "tls:")
      throw new Error(`${JSON.stringify(s)}: expected a nats: or tls: URL`);
  }
  return servers;
}

export const natsServers = (describe: string, dflt: string): EnvVar<string[]> => ({
  describe,
  parse: parseNatsServers,
  default: parseNatsServers(dflt),
});

export const optionalNatsServers = (describe: string): EnvVar<string[] | undefined> => ({
  describe,
  parse: parseNatsServers,
  default: undefined,
});

/** A secret: at least `minLength` characters; its value never appears in an error message. */
export const secret = (describe: string, minLength: number): EnvVar<string> => ({
  describe,
  parse: (raw) => {
    if (raw.length < minLength) throw new Error(`must be at least ${minLength} characters`);
    return raw;
  },
});

export const optionalSecret = (
  describe: string,
  minLength: number,
): EnvVar<string | undefined> => ({
  ...secret(describe, minLength),
  default: undefined,
});

export const oneOf = <T extends string>(
  describe: string,
  values: readonly T[],
  dflt: T,
): EnvVar<T> => ({
  describe,
  parse: (raw) => {
    if (!(values as readonly string[]).includes(raw))
      throw new Error(`expected one of ${values.join(", ")}`);
    return raw as T;
  },
  default: dflt,
});

/** A gRPC target: `host:port`, or `dns:///host:port` to balance across every address DNS returns. */
export const grpcTarget = (describe: string, dflt?: string): EnvVar<string> => ({
  describe,
  parse: (raw) => {
    if (!/^(dns:\/\/\/)?[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(raw))
      throw new Error("expected host:port or dns:///host:port");
    return raw;
  },
  ...(dflt === undefined ? {} : { default: dflt }),
});
