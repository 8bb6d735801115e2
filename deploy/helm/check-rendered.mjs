// Structured checks of one rendered case of the Argus chart, run by deploy/helm/lint.sh: the
// credentials, NATS authorization and network policies that the service registry
// (argus/files/registry.json, generated from packages/platform/src/registry.ts) implies.
//   node deploy/helm/check-rendered.mjs NAME RENDERED.yaml [VALUES.yaml ...]
// The values files are the ones the case was rendered with (merged over values.yaml, as Helm
// does). Prints one "ok   …" or "FAIL …" line per check, and "skip …" for one it cannot run.
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import console from "node:console";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";

const chart = join(dirname(fileURLToPath(import.meta.url)), "argus");
const [name, rendered, ...valuesFiles] = process.argv.slice(2);
if (!name || !rendered) {
  console.error("usage: check-rendered.mjs NAME RENDERED.yaml [VALUES.yaml ...]");
  process.exit(2);
}

const isMap = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** Helm's coalescing: maps merge, anything else replaces, null removes. */
const merge = (a, b) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) {
    if (v === null) delete out[k];
    else out[k] = isMap(v) && isMap(a?.[k]) ? merge(a[k], v) : v;
  }
  return out;
};
const values = [join(chart, "values.yaml"), ...valuesFiles]
  .map((f) => parse(readFileSync(f, "utf8")) ?? {})
  .reduce(merge, {});
const registry = JSON.parse(readFileSync(join(chart, "files/registry.json"), "utf8"));
const docs = parseAllDocuments(readFileSync(rendered, "utf8"))
  .map((d) => d.toJS())
  .filter(isMap);

const check = (ok, what, detail) => {
  const why = !ok && detail !== undefined ? ` (${detail})` : "";
  console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${what}${why}`);
};
const skip = (what) => console.log(`skip ${name}: ${what}`);

// Canonical JSON (sorted keys), to compare structures.
const canon = (v) =>
  Array.isArray(v)
    ? `[${v.map(canon).join(",")}]`
    : isMap(v)
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
          .join(",")}}`
      : JSON.stringify(v);
const sameSet = (a, b) => canon([...new Set(a)].sort()) === canon([...new Set(b)].sort());
const show = (v) => JSON.stringify(v);

/**
 * A CIDR as Go's net.ParseCIDR reads it: { family, value (BigInt of the address bits), bits },
 * an IPv4-mapped IPv6 address (::ffff:a.b.c.d) being IPv4; null when it does not parse.
 */
const parseCidr = (text) => {
  const [addr, len] = String(text).split("/");
  const prefix = Number(len);
  if (!/^\d+$/.test(len ?? "")) return null;
  const v4 = (s) => {
    const parts = s.split(".");
    if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255))
      return null;
    return parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n);
  };
  if (!addr.includes(":")) {
    const value = v4(addr);
    return value === null || prefix > 32 ? null : { family: 4, value, bits: prefix };
  }
  let tail = [];
  let text6 = addr;
  const dotted = addr.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) {
    const value = v4(dotted[2]);
    if (value === null) return null;
    tail = [Number(value >> 16n), Number(value & 0xffffn)].map((n) => n.toString(16));
    text6 = dotted[1].endsWith("::") ? dotted[1] : dotted[1].slice(0, -1);
  }
  const [head, rest] = text6.split("::");
  const groups = (s) => (s ? s.split(":") : []);
  const left = groups(head);
  const right = [...groups(rest), ...tail];
  const fill = text6.includes("::") ? 8 - left.length - right.length : 0;
  const all = [...left, ...Array(Math.max(fill, 0)).fill("0"), ...right];
  if (all.length !== 8 || all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g)) || prefix > 128) return null;
  const value = all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
  // ::ffff:0:0/96 and inside it: IPv4 to Go (its mask keeps the IPv6 length, the address not).
  if (value >> 32n === 0xffffn)
    return { family: 4, value: value & 0xffffffffn, bits: prefix - 96, mapped: true };
  return { family: 6, value, bits: prefix };
};
/** Go's IPNet.Contains of inner's address, and a longer prefix: the API server's rule. */
const strictSubset = (inner, outer) => {
  if (inner.family !== outer.family || outer.mapped) return false;
  const width = outer.family === 4 ? 32n : 128n;
  const shift = width - BigInt(outer.bits);
  return (
    inner.value >> shift === outer.value >> shift &&
    inner.bits + (inner.mapped ? 96 : 0) > outer.bits
  );
};

const envPrefix = (n) => n.replace(/-/g, "_").toUpperCase();
const ofKind = (kind) => docs.filter((d) => d.kind === kind);
const component = (d) => d.metadata?.labels?.["app.kubernetes.io/component"];
const container = (d) => d.spec.template.spec.containers[0];
const envNamed = (c, n) => (c.env ?? []).filter((e) => e.name === n);
const keyRef = (e) => e?.valueFrom?.secretKeyRef;
const decoded = (secret) =>
  Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]),
  );
const isCredentialKey = (k) => /^(DATABASE_URL|NATS_PASSWORD)|_PRIVATE_KEY$/.test(k ?? "");

const perService = values.postgres.perService;
const existing = values.secrets.existingSecret;
const natsPasswords = values.nats.passwords ?? {};
const identities = Object.keys(registry.nats.permissions);
const manager = registry.nats.manager;
const enabled = registry.services.filter((s) => values.services[s.valuesKey]?.enabled);
const enabledNames = enabled.map((s) => s.name);
const dbKey = (who) => (perService ? `DATABASE_URL_${envPrefix(who)}` : "DATABASE_URL");
const natsKey = (who) => `NATS_PASSWORD_${envPrefix(who)}`;

const secrets = ofKind("Secret");
const hookOf = (d) => d.metadata?.annotations?.["helm.sh/hook"];
const releaseSecret = secrets.find(
  (s) => !hookOf(s) && !s.metadata.name.endsWith("-authorization"),
);
const hookSecret = secrets.find((s) => hookOf(s));
const authSecret = secrets.find((s) => s.metadata.name.endsWith("-nats-authorization"));
const releaseData = decoded(releaseSecret);
const secretName = existing || releaseSecret?.metadata.name;
const deployments = ofKind("Deployment");
const jobs = ofKind("Job");

// --- Each registry service: its own database role and NATS identity, listening on the pod.
const passwordKeys = [];
for (const s of enabled) {
  const dep = deployments.find((d) => component(d) === s.name);
  check(dep, `${s.name}: a Deployment`);
  if (!dep) continue;
  const c = container(dep);
  const db = envNamed(c, "DATABASE_URL");
  check(
    db.length === 1 && keyRef(db[0])?.key === dbKey(s.name) && keyRef(db[0])?.name === secretName,
    `${s.name}: one DATABASE_URL, from ${secretName}/${dbKey(s.name)}`,
    show(db),
  );
  const user = envNamed(c, "NATS_USER");
  const pass = envNamed(c, "NATS_PASSWORD");
  check(
    user.length === 1 &&
      user[0].value === s.name &&
      pass.length === 1 &&
      keyRef(pass[0])?.key === natsKey(s.name) &&
      keyRef(pass[0])?.name === secretName,
    `${s.name}: NATS_USER=${s.name} and NATS_PASSWORD from ${secretName}/${natsKey(s.name)}`,
    show([...user, ...pass]),
  );
  passwordKeys.push(keyRef(pass[0])?.key);
  const own = [dbKey(s.name), natsKey(s.name), s.callKeys.privateKeyVar];
  const foreign = (c.env ?? [])
    .map((e) => keyRef(e)?.key)
    .filter((k) => isCredentialKey(k) && !own.includes(k));
  check(
    foreign.length === 0 && !(c.envFrom ?? []).some((e) => e.secretRef),
    `${s.name}: no other credential (nor a whole Secret through envFrom)`,
    show(foreign),
  );
  check(
    envNamed(c, "ARGUS_BIND_HOST")[0]?.value === "0.0.0.0",
    `${s.name}: ARGUS_BIND_HOST=0.0.0.0`,
  );
}
check(
  passwordKeys.length === enabled.length && new Set(passwordKeys).size === passwordKeys.length,
  "one NATS credential per registry service, none shared",
  show(passwordKeys),
);

// --- The gateway: no database role; its own NATS identity (principal-cache invalidations).
const gateway = deployments.find((d) => component(d) === registry.gateway.name);
check(gateway, "gateway: a Deployment");
if (gateway) {
  const c = container(gateway);
  const gw = registry.gateway.name;
  const user = envNamed(c, "NATS_USER");
  const pass = envNamed(c, "NATS_PASSWORD");
  check(
    user.length === 1 &&
      user[0].value === gw &&
      pass.length === 1 &&
      keyRef(pass[0])?.key === natsKey(gw) &&
      keyRef(pass[0])?.name === secretName,
    `gateway: NATS_USER=${gw} and NATS_PASSWORD from ${secretName}/${natsKey(gw)}`,
    show([...user, ...pass]),
  );
  passwordKeys.push(keyRef(pass[0])?.key);
  const held = (c.env ?? []).filter(
    (e) =>
      e.name === "DATABASE_URL" ||
      (isCredentialKey(keyRef(e)?.key) &&
        keyRef(e)?.key !== natsKey(gw) &&
        keyRef(e)?.key !== registry.gateway.callKeys.privateKeyVar),
  );
  check(
    held.length === 0 && !(c.envFrom ?? []).some((e) => e.secretRef),
    "gateway: no database credential, no other NATS identity, no service's private key",
    show(held),
  );
  check(
    new Set(passwordKeys).size === passwordKeys.length,
    "the gateway's NATS credential is its own",
    show(passwordKeys),
  );
  check(envNamed(c, "ARGUS_HTTP_HOST")[0]?.value === "0.0.0.0", "gateway: ARGUS_HTTP_HOST=0.0.0.0");
}

// --- Call keys (Ed25519): each process gets its own private key when it signs and exactly the
// public keys of those whose calls it serves (registry callKeys), each from its signer's Secret.
const keyVar = /_(PRIVATE|PUBLIC)_KEY$/;
const signers = registry.callSigners;
const signerOf = new Map(
  signers.flatMap((s) => [
    [s.privateKey, s.name],
    [s.publicKey, s.name],
  ]),
);
const callKeySecret = (signer) => values.callKeys?.[signer]?.existingSecret || secretName;
const callKeyVars = (k) => [...(k.privateKeyVar ? [k.privateKeyVar] : []), ...k.publicKeyVars];
for (const p of [registry.gateway, ...enabled]) {
  const dep = deployments.find((d) => component(d) === p.name);
  if (!dep) continue;
  const got = (container(dep).env ?? []).filter(
    (e) => keyVar.test(e.name) || keyVar.test(keyRef(e)?.key ?? ""),
  );
  const want = callKeyVars(p.callKeys);
  check(
    got.length === want.length &&
      sameSet(
        got.map((e) => e.name),
        want,
      ) &&
      got.every(
        (e) => keyRef(e)?.key === e.name && keyRef(e)?.name === callKeySecret(signerOf.get(e.name)),
      ),
    `${p.name}: call keys ${show(want)} and no other, each from its signer's Secret`,
    show(got.map((e) => [e.name, keyRef(e)])),
  );
}
for (const j of jobs) {
  const keys = (container(j).env ?? []).filter((e) => keyVar.test(keyRef(e)?.key ?? e.name));
  check(keys.length === 0, `${component(j)}: no call key`, show(keys));
}
/** A key as the services read it (platform callCredentials.ts): PEM, else base64 DER. */
const readKey = (text, kind) => {
  const pem = text.trim().startsWith("-----BEGIN");
  const der = { key: Buffer.from(text.trim(), "base64"), format: "der" };
  return kind === "private"
    ? createPrivateKey(pem ? text : { ...der, type: "pkcs8" })
    : createPublicKey(pem ? text : { ...der, type: "spki" });
};
if (!existing) {
  const held = signers.filter((s) => !values.callKeys?.[s.name]?.existingSecret);
  const inSecret = Object.keys(releaseData).filter((k) => keyVar.test(k));
  check(
    sameSet(
      inSecret,
      held.flatMap((s) => [s.privateKey, s.publicKey]),
    ),
    `the release Secret holds the call key pair of each signer without its own Secret ${show(held.map((s) => s.name))}`,
    show(inSecret),
  );
  for (const s of held) {
    const given = values.callKeys?.[s.name] ?? {};
    let why;
    try {
      const priv = readKey(releaseData[s.privateKey] ?? "", "private");
      const pub = readKey(releaseData[s.publicKey] ?? "", "public");
      const probe = Buffer.from("argus call key check");
      if (priv.asymmetricKeyType !== "ed25519") why = `a ${priv.asymmetricKeyType} key`;
      else if (!verify(null, probe, pub, sign(null, probe, priv))) why = "the keys do not match";
      else if (given.privateKey && releaseData[s.privateKey] !== given.privateKey)
        why = "not the private key of callKeys";
      else if (given.publicKey && releaseData[s.publicKey] !== given.publicKey)
        why = "not the public key of callKeys";
    } catch (err) {
      why = err.message;
    }
    check(!why, `the release Secret: ${s.name}'s call keys are a matching Ed25519 pair`, why);
  }
}

// --- The ConfigMap: stream and subject root for the services.
const config = ofKind("ConfigMap")[0]?.data ?? {};
check(
  config.ARGUS_EVENTS_STREAM === values.nats.stream &&
    config.ARGUS_SUBJECT_ROOT === values.nats.subjectRoot,
  `ConfigMap: ARGUS_EVENTS_STREAM=${values.nats.stream}, ARGUS_SUBJECT_ROOT=${values.nats.subjectRoot}`,
  show(config),
);

// --- Network policies: gRPC in from the registry's callers only, out to what a process calls.
const grpcPort = values.ports.grpc;
const natsPort = (() => {
  if (values.nats.networkPolicy.port) return Number(values.nats.networkPolicy.port);
  const port = new URL(values.nats.url.split(",")[0].trim()).port;
  return port ? Number(port) : 4222;
})();
const peerComponents = (rules, side) =>
  rules
    .filter((r) => (r.ports ?? []).some((p) => p.port === grpcPort))
    .flatMap((r) =>
      (r[side] ?? [{ anywhere: true }]).flatMap((peer) => {
        const exprs = peer.podSelector?.matchExpressions ?? [];
        const release = exprs.find((e) => e.key === "app.kubernetes.io/instance");
        const comp = exprs.find((e) => e.key === "app.kubernetes.io/component");
        return release && comp ? comp.values : ["<any peer>"];
      }),
    );
const policies = ofKind("NetworkPolicy");
if (values.networkPolicy.enabled) {
  for (const s of enabled) {
    const np = policies.find((p) => component(p) === s.name);
    check(np, `${s.name}: a NetworkPolicy`);
    if (!np) continue;
    const from = peerComponents(np.spec.ingress ?? [], "from");
    check(
      sameSet(from, s.callers) && from.length === s.callers.length,
      `${s.name}: gRPC ingress from exactly its registry callers ${show(s.callers)}`,
      show(from),
    );
    const calls = [...s.calls, ...(s.optionalCalls ?? [])].filter((t) => enabledNames.includes(t));
    const to = peerComponents(np.spec.egress ?? [], "to");
    check(
      sameSet(to, calls) && to.length === calls.length,
      `${s.name}: gRPC egress to exactly the enabled services it calls ${show(calls)}`,
      show(to),
    );
  }
  const gw = policies.find((p) => component(p) === registry.gateway.name);
  const gwTo = peerComponents(gw?.spec.egress ?? [], "to");
  check(
    sameSet(gwTo, enabledNames) && gwTo.length === enabledNames.length,
    `gateway: gRPC egress to every enabled service ${show(enabledNames)}`,
    show(gwTo),
  );
  check(
    (gw?.spec.ingress ?? []).some((r) => r.ports?.some((p) => p.port === values.ports.http)),
    "gateway: HTTP ingress kept",
  );
  check(
    !values.services.gateway?.egress?.nats ||
      (gw?.spec.egress ?? []).some((r) => r.ports?.some((p) => p.port === natsPort)),
    `gateway: NetworkPolicy egress to NATS (${natsPort}) for principal-cache invalidations`,
  );
  if (values.migrations.enabled) {
    const mp = policies.find((p) => component(p) === "migrations");
    check(
      (mp?.spec.egress ?? []).some((r) => r.ports?.some((p) => p.port === natsPort)),
      `migrations: NetworkPolicy egress to NATS (${natsPort})`,
    );
  }
} else {
  check(policies.length === 0, "no NetworkPolicy when networkPolicy.enabled is false");
}

// --- ipBlocks as the API server validates them: each `except` a strict subset of its `cidr`.
// It parses with Go's net.ParseCIDR, for which an IPv4-mapped IPv6 range (::ffff:0:0/96) is an
// IPv4 one, so never inside ::/0.
for (const np of policies) {
  const peers = [
    ...(np.spec.ingress ?? []).flatMap((r) => r.from ?? []),
    ...(np.spec.egress ?? []).flatMap((r) => r.to ?? []),
  ];
  for (const { ipBlock } of peers.filter((p) => p.ipBlock)) {
    const outer = parseCidr(ipBlock.cidr);
    const bad = (ipBlock.except ?? []).filter((e) => {
      const inner = parseCidr(e);
      return !outer || !inner || !strictSubset(inner, outer);
    });
    check(
      outer && bad.length === 0,
      `${np.metadata.name}: every except of ipBlock ${ipBlock.cidr} is a strict subset of it`,
      show(bad),
    );
  }
}

// --- The migrations Job: the migration role and the NATS manager.
const hookSecretName = existing || hookSecret?.metadata.name;
const hookData = decoded(hookSecret);
const migrations = jobs.find((j) => component(j) === "migrations");
if (values.migrations.enabled) {
  check(migrations, "migrations: a Job");
  const c = migrations ? container(migrations) : {};
  const value = (n) => envNamed(c, n)[0]?.value;
  const from = (n) => keyRef(envNamed(c, n)[0]);
  check(
    from("DATABASE_URL")?.key === dbKey("migrate") && from("DATABASE_URL")?.name === hookSecretName,
    `migrations: DATABASE_URL from ${hookSecretName}/${dbKey("migrate")}`,
    show(from("DATABASE_URL")),
  );
  check(
    perService
      ? value("ARGUS_DB_ROLE_PREFIX") === values.postgres.rolePrefix
      : envNamed(c, "ARGUS_DB_ROLE_PREFIX").length === 0,
    perService
      ? `migrations: ARGUS_DB_ROLE_PREFIX=${values.postgres.rolePrefix}`
      : "migrations: no ARGUS_DB_ROLE_PREFIX (shared database login)",
  );
  check(
    value("NATS_URL") === values.nats.url &&
      value("NATS_USER") === manager &&
      from("NATS_PASSWORD")?.key === natsKey(manager) &&
      from("NATS_PASSWORD")?.name === hookSecretName &&
      value("ARGUS_EVENTS_STREAM") === values.nats.stream &&
      value("ARGUS_SUBJECT_ROOT") === values.nats.subjectRoot,
    `migrations: NATS_URL, NATS_USER=${manager}, NATS_PASSWORD from ${hookSecretName}/${natsKey(manager)}, stream and subject root`,
    show(c.env),
  );
  // The stream and its consumers are made with the replicas asked for (a 3-node JetStream
  // cluster keeps them through the loss of a server only with 3).
  check(
    value("ARGUS_STREAM_REPLICAS") === String(values.nats.streamReplicas),
    `migrations: ARGUS_STREAM_REPLICAS=${values.nats.streamReplicas} (nats.streamReplicas)`,
    show(value("ARGUS_STREAM_REPLICAS")),
  );
  const foreign = (c.env ?? [])
    .map((e) => keyRef(e)?.key)
    .filter((k) => isCredentialKey(k) && k !== dbKey("migrate") && k !== natsKey(manager));
  check(foreign.length === 0, "migrations: no service's credential", show(foreign));
  if (!existing) {
    check(
      hookData[natsKey(manager)] === releaseData[natsKey(manager)] &&
        (!perService || hookData[dbKey("migrate")] === values.postgres.urls.migrate),
      "migrations: the hook Secret carries the release's manager password and the migration URL",
    );
  }
} else {
  check(!migrations, "no migrations Job when migrations.enabled is false");
}

// --- The opt-in provision Job: the superuser, and every role's URL.
const provision = jobs.find((j) => component(j) === "provision");
if (values.provision?.enabled) {
  check(provision, "provision: a Job");
  const c = provision ? container(provision) : {};
  const su = keyRef(envNamed(c, "DATABASE_URL")[0]);
  const wanted = [...registry.services.map((s) => s.name), "migrate"].map(dbKey);
  const refs = (c.env ?? []).filter((e) => wanted.includes(e.name));
  check(
    su?.name === values.provision.superuserSecret.name &&
      su?.key === values.provision.superuserSecret.key &&
      envNamed(c, "ARGUS_DB_ROLE_PREFIX")[0]?.value === values.postgres.rolePrefix &&
      refs.length === wanted.length &&
      refs.every((e) => keyRef(e)?.key === e.name && keyRef(e)?.name === hookSecretName),
    "provision: the superuser's URL from its Secret, ARGUS_DB_ROLE_PREFIX and every role's URL",
    show(c.env),
  );
  const weight = (j) => Number(j?.metadata.annotations?.["helm.sh/hook-weight"]);
  check(
    !migrations || weight(provision) < weight(migrations),
    "provision: runs before the migrations",
  );
} else {
  check(!provision, "no provision Job unless provision.enabled");
}

// --- Every Secret key a pod reads is in the Secret the chart renders (or, with an existing
// Secret, is one of the keys deploy/README.md lists).
const reads = new Map();
for (const d of [...deployments, ...jobs]) {
  for (const e of container(d).env ?? []) {
    const r = keyRef(e);
    if (r && !r.optional) reads.set(`${r.name}/${r.key}`, r);
  }
}
const renderedSecrets = new Map(secrets.map((s) => [s.metadata.name, decoded(s)]));
const missing = [...reads.values()].filter(
  (r) => renderedSecrets.has(r.name) && !(r.key in renderedSecrets.get(r.name)),
);
check(missing.length === 0, "every Secret key a pod reads is rendered", show(missing));
if (existing) {
  const fromExisting = [...reads.values()].filter((r) => r.name === existing).map((r) => r.key);
  const documented = [
    ...enabledNames.map(dbKey),
    ...(values.migrations.enabled ? [dbKey("migrate")] : []),
    ...[registry.gateway.name, ...enabledNames].map(natsKey),
    ...(values.migrations.enabled ? [natsKey(manager)] : []),
    ...[registry.gateway, ...enabled]
      .flatMap((p) => callKeyVars(p.callKeys))
      .filter((k) => callKeySecret(signerOf.get(k)) === existing),
    "ARGUS_API_KEY_PEPPER",
    "ARGUS_CURSOR_SECRET",
    ...(enabledNames.includes("catalog") ? ["ARGUS_SECRETS_KEY"] : []),
  ];
  check(
    sameSet(fromExisting, documented),
    `the existing Secret ${existing} is read for the documented keys only`,
    show([...new Set(fromExisting)].sort()),
  );
  check(!authSecret && !hookSecret, "no chart-made Secret with secrets.existingSecret");
}

// --- The chart's Secret: one password per NATS identity, and the database URLs.
if (!existing) {
  check(releaseSecret, "the release Secret");
  const urls = values.postgres.urls ?? {};
  const dbKeys = Object.keys(releaseData).filter((k) => k.startsWith("DATABASE_URL"));
  const wantedDb = perService
    ? Object.keys(urls)
        .filter((k) => urls[k])
        .map(dbKey)
    : ["DATABASE_URL"];
  check(
    sameSet(dbKeys, wantedDb) &&
      (perService
        ? Object.entries(urls).every(([k, v]) => !v || releaseData[dbKey(k)] === v)
        : releaseData.DATABASE_URL === values.postgres.url),
    `the release Secret holds ${perService ? "each role's URL" : "the shared DATABASE_URL"} only`,
    show(dbKeys),
  );
  const natsKeys = Object.keys(releaseData).filter((k) => k.startsWith("NATS_PASSWORD"));
  check(
    sameSet(natsKeys, identities.map(natsKey)) &&
      identities.every((u) =>
        natsPasswords[u]
          ? releaseData[natsKey(u)] === natsPasswords[u]
          : /^[A-Za-z0-9]{48}$/.test(releaseData[natsKey(u)]),
      ),
    "the release Secret holds one password per NATS identity (given, else 48 generated characters)",
    show(natsKeys),
  );
}

// --- The NATS server's authorization block.
if (existing || !values.nats.renderServerAuthorization) {
  check(!authSecret, "no NATS authorization Secret (the chart holds no passwords to put in it)");
} else {
  check(authSecret, "the NATS authorization Secret");
  const conf = decoded(authSecret)["authorization.conf"] ?? "";
  const { root, stream } = registry.nats.placeholders;
  check(
    conf && !conf.includes(root) && !conf.includes(stream),
    `authorization.conf: no ${root} or ${stream} left`,
  );
  check(
    !/\\u[0-9a-fA-F]{4}/.test(conf),
    "authorization.conf: no \\u escapes (nats-server rejects them)",
  );
  const body = /^authorization \{\s*users: (\[[\s\S]*\])\s*\}\s*$/.exec(
    conf.replace(/^#.*\n/gm, ""),
  );
  let users = [];
  try {
    users = JSON.parse(body?.[1] ?? "[]");
  } catch (err) {
    check(false, "authorization.conf: the users list parses", err.message);
  }
  check(
    users.length === identities.length &&
      sameSet(
        users.map((u) => u.user),
        identities,
      ),
    `authorization.conf: one user per NATS identity ${show(identities)}`,
    show(users.map((u) => u.user)),
  );
  const substitute = (v) =>
    JSON.parse(
      JSON.stringify(v)
        .replaceAll(root, values.nats.subjectRoot)
        .replaceAll(stream, values.nats.stream),
    );
  for (const u of users) {
    check(
      canon(u.permissions) === canon(substitute(registry.nats.permissions[u.user])),
      `authorization.conf: ${u.user} has the registry's permissions for root ${values.nats.subjectRoot} and stream ${values.nats.stream}`,
      show(u.permissions),
    );
    check(
      u.password && u.password === releaseData[natsKey(u.user)],
      `authorization.conf: ${u.user}'s password is the release Secret's ${natsKey(u.user)}`,
    );
  }
  // The server itself: the pinned one the stack runs, which lint.sh passes.
  const server = process.env.ARGUS_NATS_SERVER;
  if (server && conf) {
    const dir = mkdtempSync(join(tmpdir(), "argus-nats-"));
    try {
      writeFileSync(join(dir, "authorization.conf"), conf);
      writeFileSync(join(dir, "nats.conf"), "port: 4222\ninclude ./authorization.conf\n");
      const run = spawnSync(server, ["-t", "-c", join(dir, "nats.conf")], { encoding: "utf8" });
      check(
        run.status === 0,
        "authorization.conf: nats-server -t accepts it",
        `${run.stdout}${run.stderr}`.trim(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else {
    skip("authorization.conf: no nats-server to test it with (deploy/helm/lint.sh passes one)");
  }
}

// --- The helm test pod: Helm 3 applies a hook's delete policy before `helm test --logs` reads
// the logs, and never deletes test hooks on uninstall. So the test pod is kept after success,
// and a pre-delete hook of the same name replaces it (before-hook-creation) and then goes.
const pods = ofKind("Pod");
const policyOf = (p) => (p?.metadata.annotations?.["helm.sh/hook-delete-policy"] ?? "").split(",");
if (values.tests.enabled) {
  const test = pods.find((p) => hookOf(p) === "test");
  check(
    test && !policyOf(test).includes("hook-succeeded"),
    "the test pod is kept after it succeeds, for helm test --logs",
    policyOf(test),
  );
  const remover = pods.find((p) => hookOf(p) === "pre-delete");
  check(
    remover?.metadata.name === test?.metadata.name &&
      policyOf(remover).includes("before-hook-creation") &&
      policyOf(remover).includes("hook-succeeded"),
    "a pre-delete hook of the test pod's name removes it on uninstall",
    remover?.metadata,
  );
} else {
  check(pods.length === 0, "no test pod when tests.enabled is false");
}

// --- Requests. Kubernetes quantities to millicores / MiB.
const milliCpu = (q) =>
  q === undefined ? 0 : String(q).endsWith("m") ? Number(String(q).slice(0, -1)) : Number(q) * 1000;
const mebibytes = (q) => {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi)?$/.exec(String(q ?? 0));
  const perUnit = { Ki: 1 / 1024, Mi: 1, Gi: 1024, "": 1 / (1024 * 1024) };
  return m ? Number(m[1]) * perUnit[m[2] ?? ""] : NaN;
};
const podCpu = (spec) =>
  spec.containers.reduce((sum, c) => sum + milliCpu(c.resources?.requests?.cpu), 0);

// The cluster test's values must fit its one 2-CPU node with everything the test runs beside
// them: its Postgres and NATS pods (deploy/test/*.yaml), identity scaled to a second replica,
// the hook Jobs and a rolling upgrade's surge pod per Deployment (maxUnavailable 0) at once.
if (name === "cluster-values") {
  const nodeCpu = 2000;
  const testManifests = ["postgres.yaml", "nats.yaml"].flatMap((f) =>
    parseAllDocuments(readFileSync(join(chart, "../../test", f), "utf8"))
      .map((d) => d.toJS())
      .filter((d) => d?.kind === "StatefulSet"),
  );
  const beside = testManifests.reduce(
    (sum, s) => sum + s.spec.replicas * podCpu(s.spec.template.spec),
    0,
  );
  const perDeployment = deployments.map((d) => ({
    name: d.metadata.name,
    replicas: d.spec.replicas ?? 1,
    cpu: podCpu(d.spec.template.spec),
  }));
  const steady = perDeployment.reduce((sum, d) => sum + d.replicas * d.cpu, 0);
  const identity = perDeployment.find((d) => d.name.endsWith("-identity"));
  const surge = perDeployment.reduce((sum, d) => sum + Math.ceil(d.replicas / 4) * d.cpu, 0);
  const hooks = [...jobs, ...ofKind("Pod")].reduce(
    (sum, j) => sum + podCpu(j.kind === "Pod" ? j.spec : j.spec.template.spec),
    0,
  );
  const total = beside + steady + (identity?.cpu ?? 0) + surge + hooks;
  check(
    identity && total <= nodeCpu,
    `requests fit a ${nodeCpu}m node: ${beside}m Postgres and NATS + ${steady}m services + ${identity?.cpu ?? 0}m identity's second replica + ${surge}m upgrade surge + ${hooks}m hooks and tests = ${total}m`,
  );
}

// --- deploy/README.md's table of defaults per service is values.yaml's, with its total.
if (name === "default") {
  const readme = readFileSync(join(chart, "../../README.md"), "utf8");
  const rows = [
    ...readme.matchAll(
      /^\| `(\w+)` \| (yes|no) \| (\d+)(?: \(HPA (\d+)–(\d+)\))? \| (\w+) \| (\w+) \| (\w+) \|$/gm,
    ),
  ];
  const documented = Object.fromEntries(rows.map((r) => [r[1], r.slice(2)]));
  const defaults = parse(readFileSync(join(chart, "values.yaml"), "utf8")).services;
  for (const [key, svc] of Object.entries(defaults)) {
    const a = svc.autoscaling ?? {};
    const want = [
      svc.enabled ? "yes" : "no",
      String(a.enabled ? a.minReplicas : svc.replicas),
      a.enabled ? String(a.minReplicas) : undefined,
      a.enabled ? String(a.maxReplicas) : undefined,
      String(svc.resources?.requests?.cpu),
      String(svc.resources?.requests?.memory),
      String(svc.resources?.limits?.memory),
    ];
    check(
      canon(documented[key]) === canon(want),
      `README: ${key}'s defaults as values.yaml has them (${want.filter(Boolean).join(", ")})`,
      show(documented[key] ?? "no row"),
    );
  }
  check(
    sameSet(Object.keys(documented), Object.keys(defaults)),
    "README: a defaults row for every service of values.yaml, and no other",
    show(Object.keys(documented)),
  );
  const on = Object.values(defaults).filter((s) => s.enabled);
  const replicasOf = (s) => (s.autoscaling?.enabled ? s.autoscaling.minReplicas : s.replicas);
  const cpu = on.reduce((sum, s) => sum + replicasOf(s) * milliCpu(s.resources.requests.cpu), 0);
  const mem = on.reduce(
    (sum, s) => sum + replicasOf(s) * mebibytes(s.resources.requests.memory),
    0,
  );
  const stated = /\*\*(\d+(?:\.\d+)?) CPU and (\d+(?:\.\d+)?) GiB\*\*/.exec(readme);
  check(
    stated &&
      Number(stated[1]) === cpu / 1000 &&
      Number(stated[2]) === Math.round((mem / 1024) * 100) / 100,
    `README: the defaults request ${cpu / 1000} CPU and ${Math.round((mem / 1024) * 100) / 100} GiB in all`,
    show(stated?.slice(1)),
  );
}
