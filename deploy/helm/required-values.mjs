// The one value the chart's defaults need: each registry service's database URL and the
// migration role's (postgres.perService), derived from files/registry.json so that a new
// service needs nothing here. Prints the values as JSON (YAML's subset), for `helm -f`:
//   node deploy/helm/required-values.mjs > required-values.yaml
// Used by deploy/helm/lint.sh and deploy/test/cluster.sh to render the defaults.
import console from "node:console";
import { readFileSync } from "node:fs";
import { URL } from "node:url";

const registry = JSON.parse(
  readFileSync(new URL("argus/files/registry.json", import.meta.url), "utf8"),
);
const url = (name) =>
  `postgres://argus_${name.replace(/-/g, "_")}:lint-password@postgres.db:5432/argus`;
const urls = Object.fromEntries(
  [...registry.services.map((s) => s.name), "migrate"].map((n) => [n, url(n)]),
);
console.log(JSON.stringify({ postgres: { urls } }));
