import type { TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import type { MsgHdrs } from "@nats-io/nats-core";

export const natsHeaderSetter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

export const natsHeaderGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => carrier?.keys() ?? [],
  get: (carrier, key) => (carrier?.has(key) ? carrier.get(key) : undefined),
};

/** Event metadata holds traceparent/tracestate as plain string fields. */
export const metadataGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};
