import { createHash } from "node:crypto";

/** SHA-256's round constants (FIPS 180-4, 4.2.2). */
const K = Int32Array.from(
  [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ],
  (k) => k | 0,
);
const INITIAL = Int32Array.from(
  [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19],
  (h) => h | 0,
);
const BLOCK = 64;

// Scratch space: a digest runs synchronously, start to end.
const w = new Int32Array(64);
const state = new Int32Array(8);
const tail = new Uint8Array(2 * BLOCK);
const digest = new Uint8Array(32);
const base64url = new Array<number>(43);
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
let message = new Uint8Array(256);

/** One block of `bytes` from `at` into `h` (FIPS 180-4, 6.2.2). */
function compress(h: Int32Array, bytes: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++) {
    const j = at + i * 4;
    w[i] = (bytes[j]! << 24) | (bytes[j + 1]! << 16) | (bytes[j + 2]! << 8) | bytes[j + 3]!;
  }
  compressWords(h);
}

/** The block already in `w`'s first 16 words into `h`. */
function compressWords(h: Int32Array): void {
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15]!;
    const y = w[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
  }
  let a = h[0]!;
  let b = h[1]!;
  let c = h[2]!;
  let d = h[3]!;
  let e = h[4]!;
  let f = h[5]!;
  let g = h[6]!;
  let k = h[7]!;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (k + s1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] = (h[0]! + a) | 0;
  h[1] = (h[1]! + b) | 0;
  h[2] = (h[2]! + c) | 0;
  h[3] = (h[3]! + d) | 0;
  h[4] = (h[4]! + e) | 0;
  h[5] = (h[5]! + f) | 0;
  h[6] = (h[6]! + g) | 0;
  h[7] = (h[7]! + k) | 0;
}

/**
 * `length` bytes of `bytes` into `h`, which has already taken `before` bytes (whole blocks),
 * and the padding: `h` is then the digest.
 */
function finish(h: Int32Array, bytes: Uint8Array, length: number, before: number): void {
  let at = 0;
  for (; length - at >= BLOCK; at += BLOCK) compress(h, bytes, at);
  const rest = length - at;
  const end = rest + 9 > BLOCK ? 2 * BLOCK : BLOCK;
  for (let i = 0; i < rest; i++) tail[i] = bytes[at + i]!;
  tail[rest] = 0x80;
  tail.fill(0, rest + 1, end - 5);
  // The length in bits, big-endian in the last eight bytes; texts here stay far below 2^40.
  const bits = (before + length) * 8;
  tail[end - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  tail[end - 4] = bits >>> 24;
  tail[end - 3] = (bits >>> 16) & 0xff;
  tail[end - 2] = (bits >>> 8) & 0xff;
  tail[end - 1] = bits & 0xff;
  compress(h, tail, 0);
  if (end > BLOCK) compress(h, tail, BLOCK);
}

/** The 32 bytes of `h` as base64url, without padding (43 characters). */
function base64urlOf(h: Int32Array): string {
  for (let i = 0; i < 8; i++) {
    const v = h[i]!;
    digest[i * 4] = v >>> 24;
    digest[i * 4 + 1] = (v >>> 16) & 0xff;
    digest[i * 4 + 2] = (v >>> 8) & 0xff;
    digest[i * 4 + 3] = v & 0xff;
  }
  let o = 0;
  for (let i = 0; i < 30; i += 3) {
    const n = (digest[i]! << 16) | (digest[i + 1]! << 8) | digest[i + 2]!;
    base64url[o++] = CODES[n >>> 18]!;
    base64url[o++] = CODES[(n >>> 12) & 63]!;
    base64url[o++] = CODES[(n >>> 6) & 63]!;
    base64url[o++] = CODES[n & 63]!;
  }
  const n = (digest[30]! << 8) | digest[31]!;
  base64url[o++] = CODES[n >>> 10]!;
  base64url[o++] = CODES[(n >>> 4) & 63]!;
  base64url[o] = CODES[(n << 2) & 63]!;
  return String.fromCharCode(...base64url);
}

/** The state after one block of the key, padded to a block and xored with `pad`. */
function keyedState(key: Uint8Array, pad: number): Int32Array {
  const block = new Uint8Array(BLOCK).fill(pad);
  for (let i = 0; i < key.length; i++) block[i] = key[i]! ^ pad;
  const h = INITIAL.slice();
  compress(h, block, 0);
  return h;
}

/** The UTF-8 of `text` in `message` (grown as needed), and its length. */
function utf8(text: string): number {
  if (text.length * 3 > message.length) message = new Uint8Array(text.length * 3);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return Buffer.from(message.buffer).write(text, 0, "utf8");
    message[i] = c;
  }
  return text.length;
}

/**
 * HMAC-SHA-256 (RFC 2104) under one key, as base64url: node:crypto's
 * `createHmac("sha256", key).update(text).digest("base64url")`, byte for byte.
 *
 * Why not node:crypto: the gateway keys its principal cache by the HMAC of each request's API
 * key, and inside the loaded gateway OpenSSL's HMAC took 18 µs a call (a one-shot digest 9 µs),
 * against ~2 µs in a loop: setting up its context walks cold memory on every call. This one
 * keeps the key's inner and outer states, so an API key costs two compressions in JavaScript
 * (~4 µs measured in the same place; bench/README.md, "Measured 2026-12-03 midday").
 */
export function hmacSha256Under(key: Uint8Array): (text: string) => string {
  const k = key.length > BLOCK ? createHash("sha256").update(key).digest() : key;
  const inner = keyedState(k, 0x36);
  const outer = keyedState(k, 0x5c);
  return (text) => {
    const length = utf8(text); // first: it may replace `message`
    state.set(inner);
    finish(state, message, length, BLOCK);
    // The outer hash's one block: the inner digest, its padding, 96 bytes' length in bits.
    for (let i = 0; i < 8; i++) w[i] = state[i]!;
    w[8] = 0x80000000 | 0;
    w.fill(0, 9, 15);
    w[15] = (BLOCK + 32) * 8;
    state.set(outer);
    compressWords(state);
    return base64urlOf(state);
  };
}
