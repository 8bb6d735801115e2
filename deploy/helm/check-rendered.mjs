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
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  // The server itself, when one is installed (the test stack needs it anyway).
  const server = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/bin", "/usr/local/bin"]
    .map((d) => join(d, "nats-server"))
    .find((p) => existsSync(p));
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
    skip("authorization.conf: no nats-server installed to test it with");
  }
}
