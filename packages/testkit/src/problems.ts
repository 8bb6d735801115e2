import { fromGrpcError } from "@argus/platform";

/** The problem type and detail a gRPC call fails with, or "ok" and "". */
export async function problemWith(p: Promise<unknown>): Promise<{ type: string; detail: string }> {
  try {
    await p;
    return { type: "ok", detail: "" };
  } catch (err) {
    const e = fromGrpcError(err);
    return { type: e.type, detail: e.message };
  }
}

/** The problem type a gRPC call fails with, or "ok". */
export const problemOf = async (p: Promise<unknown>): Promise<string> =>
  (await problemWith(p)).type;
