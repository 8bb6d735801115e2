// Lint step: no import circle inside any service or package (type-only imports count too).
// Each src folder is read on its own, so a package's index importing another package is no circle.
//   node scripts/check-circles.ts            (part of `pnpm lint`)
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import madge from "madge";

const roots = ["services", "packages"].flatMap((top) =>
  readdirSync(top)
    .map((name) => join(top, name, "src"))
    .filter((dir) => existsSync(dir) && !dir.startsWith(join("packages", "proto"))),
);

let circles = 0;
for (const dir of roots) {
  const graph = await madge(dir, {
    fileExtensions: ["ts"],
    tsConfig: "tsconfig.json",
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  for (const circle of graph.circular()) {
    circles++;
    console.error(`import circle in ${dir}: ${circle.join(" > ")}`);
  }
}
if (circles > 0) process.exit(1);
console.log(`no import circle in ${roots.length} src folders`);
