export { taskRunner, taskServices, type TasksDeps } from "./service.ts";
