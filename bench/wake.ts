// `pnpm exec node bench/wake.ts`: what this machine charges a request for waking a process that
// has been idle. One grpc-js hop (a 54 KB request, the size of a PATCH of 1000 examples between
// the gateway and the dataset service, and a 40-byte answer) to a bare server in another
// process, back to back and after the server has been idle 0.25 to 8 ms (the client spins
// meanwhile, so only the server's side idles). A PATCH's path crosses a process boundary about
// a dozen times, each after the process on the other side has waited for the rest of the
// path; one `UPDATE` from a client, twice. Reported in bench/README.md ("The PATCH's critical
// path"), with the same run's numbers of a guest whose kernel polls before it halts an idle
// CPU (`/sys/module/haltpoll/parameters/guest_halt_poll_ns`, 0 on this machine).
import * as grpc from "@grpc/grpc-js";
import { fork } from "node:child_process";

const same = (b: Buffer) => b;
const service: grpc.ServiceDefinition = {
  call: {
    path: "/bench.Wake/Call",
    requestStream: false,
    responseStream: false,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  },
};
const REQUEST_BYTES = 54_000;
const CALLS = 400;

if (process.argv[2] === "server") {
  const server = new grpc.Server();
  const answer = Buffer.alloc(40);
  server.addService(service, {
    call: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) =>
      done(null, answer),
  });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    process.send?.(port);
  });
} else {
  const child = fork(process.argv[1]!, ["server"]);
  try {
    const port = await new Promise<number>((resolve) =>
      child.once("message", (m) => resolve(Number(m))),
    );
    const Client = grpc.makeGenericClientConstructor(service, "Wake");
    const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const request = Buffer.alloc(REQUEST_BYTES, 97);
    const call = () =>
      new Promise<void>((resolve, reject) =>
        client.makeUnaryRequest("/bench.Wake/Call", same, same, request, (err) =>
          err ? reject(err) : resolve(),
        ),
      );
    const spin = (ms: number) => {
      for (const end = performance.now() + ms; performance.now() < end;);
    };
    for (let i = 0; i < 300; i++) await call();
    console.log(`one gRPC hop of ${REQUEST_BYTES} bytes, ${CALLS} calls each, ms:`);
    console.log("server idle before the call   p50     p90");
    for (const idleMs of [0, 0.25, 0.5, 1, 2, 4, 8]) {
      const times: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        spin(idleMs);
        const start = performance.now();
        await call();
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.floor(times.length * q)]!.toFixed(3);
      console.log(`${`${idleMs} ms`.padStart(10)}${at(0.5).padStart(26)}${at(0.9).padStart(8)}`);
    }
    client.close();
  } finally {
    child.kill();
  }
}
