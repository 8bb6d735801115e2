import { Principal } from "@argus/proto/common/v1";

export { Principal };

/**
 * Nobody, with no rights: the principal of a call a service makes on its own behalf, which
 * carries none (callCredentials.ts). Decoding no bytes yields every field at its default.
 */
export const NOBODY: Principal = Principal.decode(new Uint8Array());
