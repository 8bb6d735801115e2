import type { Server as HttpServer } from "node:http";
import * as grpc from "@grpc/grpc-js";
import type { Logger, PrincipalSigner } from "@argus/platform";
import type { Backend } from "../backend.ts";
import type { Authenticator } from "../auth/authenticate.ts";
import type { GatewayLimiters } from "../http/rateLimit.ts";
import { otlpTraceService } from "../otlp/grpcServer.ts";
import type { IngestDeps } from "../otlp/ingest.ts";
import { bulkBackend } from "./bulk.ts";
import { datasetFlight } from "./datasets.ts";
import { CREATE_EXPERIMENT_DB_ENTRY, experimentFlight } from "./experiments.ts";
import { EXPORT_SPANS_TICKET, spanExportFlight } from "./spanExport.ts";
import { spanFlight } from "./spans.ts";
import {
  flightServiceDefinition,
  flightServiceImplementation,
  type FlightHandlers,
} from "./service.ts";
import { shareHttpPort } from "./singlePort.ts";

export interface GatewayGrpcOptions {
  host: string;
  /** ARGUS_FLIGHT_PORT; 0: no listener of its own. */
  port: number;
  /** ARGUS_FLIGHT_MAX_MESSAGE_BYTES: one Arrow batch, the largest message a client may send. */
  maxMessageBytes: number;
  authenticator: Authenticator;
  limiters: GatewayLimiters;
  backends: { dataset: Backend; tracing: Backend };
  signer: PrincipalSigner;
  /** OTLP/gRPC as its own listener serves it, for the REST port's HTTP/2 side. */
  otlp: { deps: IngestDeps; maxMessageBytes: number } | undefined;
  logger: Logger;
}

export interface RunningGatewayGrpc {
  /** The Flight listener's bound port; undefined without one. */
  port: number | undefined;
  /** Makes `http` serve this server's gRPC too (HTTP/2 with prior knowledge). */
  share(http: HttpServer): void;
  stop(graceMs?: number): Promise<void>;
}

/** Every Flight request served: datasets and experiments, the span updates and export. */
function flightHandlers(opts: Pick<GatewayGrpcOptions, "backends" | "signer">): FlightHandlers {
  const dataset = bulkBackend(opts.backends.dataset, opts.signer);
  const datasets = datasetFlight(dataset);
  const experiments = experimentFlight(dataset);
  const tracing = bulkBackend(opts.backends.tracing, opts.signer);
  const spans = spanFlight(tracing);
  const spanExport = spanExportFlight(tracing);
  return {
    doPut: {
      createDataset: datasets.createDataset,
      postExperimentData: experiments.postExperimentData,
      writeSpanEvaluationRequest: spans.writeSpanEvaluationRequest,
      writeSpanAnnotationRequest: spans.writeSpanAnnotationRequest,
      writeSpanAttributesMetadataRequest: spans.writeSpanAttributesMetadataRequest,
    },
    doGet: {
      getDataset: datasets.getDataset,
      getExperiment: experiments.getExperiment,
    },
    ownTickets: { [EXPORT_SPANS_TICKET]: spanExport.exportSpans },
    getFlightInfo: spanExport.getFlightInfo,
    doAction: {
      [CREATE_EXPERIMENT_DB_ENTRY]: {
        description:
          "an experiment without runs on a dataset's latest version (postExperimentData adds them)",
        handle: experiments.createExperimentDbEntry,
      },
    },
  };
}

/**
 * The gateway's gRPC beyond OTLP's own listener: Arrow Flight (and OTLP/gRPC, so that one
 * address serves everything) on ARGUS_FLIGHT_PORT and on the REST port's HTTP/2 side.
 */
export async function startGatewayGrpc(opts: GatewayGrpcOptions): Promise<RunningGatewayGrpc> {
  const server = new grpc.Server({
    "grpc.max_receive_message_length": opts.maxMessageBytes,
    "grpc.max_send_message_length": -1,
    "grpc.keepalive_permit_without_calls": 1,
    // A bulk stream lasts as long as its data: no connection age that would cut one.
    "grpc.enable_channelz": 0,
  });
  server.addService(
    flightServiceDefinition,
    flightServiceImplementation({
      authenticator: opts.authenticator,
      limiters: opts.limiters,
      logger: opts.logger,
      handlers: flightHandlers(opts),
    }),
  );
  if (opts.otlp) {
    const otlp = otlpTraceService({ ...opts.otlp, logger: opts.logger });
    server.addService(otlp.definition, otlp.implementation);
  }
  let port: number | undefined;
  if (opts.port !== 0)
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(
        opts.host.includes(":") ? `[${opts.host}]:${opts.port}` : `${opts.host}:${opts.port}`,
        grpc.ServerCredentials.createInsecure(),
        (err, bound) => (err ? reject(err) : resolve(bound)),
      ),
    );
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const shared: { close(): void }[] = [];
  return {
    port,
    share(http) {
      shared.push(shareHttpPort(http, (socket) => injector.injectConnection(socket)));
    },
    stop: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        for (const s of shared) s.close();
        injector.drain(graceMs);
        const force = setTimeout(() => {
          server.forceShutdown();
          injector.destroy();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          injector.destroy();
          resolve();
        });
      }),
  };
}
