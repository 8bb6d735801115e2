import { serviceMain } from "@argus/eventstore";
import { dataset } from "./service.ts";

await serviceMain(dataset);
