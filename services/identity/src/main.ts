import { serviceMain } from "@argus/eventstore";
import { identity } from "./service.ts";

await serviceMain(identity);
