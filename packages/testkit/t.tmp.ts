import { startInfra } from "./src/index.ts";
await startInfra();
console.log("up");
setInterval(() => {}, 1000);
