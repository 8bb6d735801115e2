import type { Metadata } from "@grpc/grpc-js";
import type { Carrier } from "./telemetry.ts";

export const REQUEST_ID_KEY = "x-request-id";
export const CLIENT_IP_KEY = "x-client-ip";

export function metadataCarrier(md: Metadata): Carrier {
  return {
    get: (k) => {
      const v = md.get(k)[0];
      return typeof v === "string" ? v : undefined;
    },
    set: (k, v) => md.set(k, v),
  };
}
