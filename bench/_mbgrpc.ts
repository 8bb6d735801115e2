import * as grpc from "@grpc/grpc-js";
const id = (b: Buffer) => b;
const def = { get: { path: "/b.S/Get", requestStream: false, responseStream: false, requestSerialize: id, requestDeserialize: id, responseSerialize: id, responseDeserialize: id } } as grpc.ServiceDefinition;
const server = new grpc.Server();
server.addService(def, { get: (call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, call.request) });
const port = await new Promise<number>((r, j) => server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? j(e) : r(p))));
const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
const payload = Buffer.alloc(60, 1);
function viaClient(): Promise<Buffer> {
  const md = new grpc.Metadata(); md.set("x-a", "abc"); md.set("x-b", "def");
  return new Promise((res, rej) => client.makeUnaryRequest("/b.S/Get", id, id, payload, md, { deadline: new Date(Date.now() + 5000) }, (e, v) => (e ? rej(e) : res(v!))));
}
const channel = client.getChannel();
function viaChannel(): Promise<Buffer> {
  const md = new grpc.Metadata(); md.set("x-a", "abc"); md.set("x-b", "def");
  return new Promise((res, rej) => {
    const call = channel.createCall("/b.S/Get", new Date(Date.now() + 5000), null, null, 0);
    let msg: Buffer | undefined;
    call.start(md, {
      onReceiveMetadata() {},
      onReceiveMessage(m: Buffer) { msg = m; },
      onReceiveStatus(s) { if (s.code === 0 && msg) res(msg); else rej(Object.assign(new Error(s.details), s)); },
    });
    call.sendMessageWithContext({ callback() {} }, payload);
    call.halfClose();
    call.startRead();
  });
}
async function run(name: string, f: () => Promise<Buffer>, n: number) {
  for (let i = 0; i < 3000; i++) await Promise.all([f(), f(), f(), f()]);
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n / 4; i++) await Promise.all([f(), f(), f(), f()]);
  const c = process.cpuUsage(c0);
  console.log(name, ((c.user + c.system) / n).toFixed(1), "µs cpu/call (both sides)", ((performance.now() - t0) * 1000 / n).toFixed(1), "µs wall");
}
for (let r = 0; r < 3; r++) { await run("client ", viaClient, 40000); await run("channel", viaChannel, 40000); }
server.forceShutdown(); client.close();
