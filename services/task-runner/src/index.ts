export type { TasksDeps } from "./deps.ts";
export { taskRunner, taskServices } from "./service.ts";
