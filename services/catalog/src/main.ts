import { serviceMain } from "@argus/eventstore";
import { catalog } from "./service.ts";

await serviceMain(catalog);
