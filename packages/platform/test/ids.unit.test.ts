import { describe, expect, it } from "vitest";
import {
  decodeCanonicalId,
  decodeId,
  encodeId,
  isUuid,
  isUuidAnyCase,
  isUuidList,
  joinedUuidsOf,
  publicIdSql,
  uuidv7,
} from "../src/ids.ts";

describe("ids", () => {
  it("isUuid takes exactly a dashed lowercase uuid; isUuidAnyCase takes either case", () => {
    const lower = "0190a8b4-5c3d-7e2f-8a1b-9c0d1e2f3a4b";
    expect(isUuid(lower)).toBe(true);
    expect(isUuidAnyCase(lower)).toBe(true);
    expect(isUuid(lower.toUpperCase())).toBe(false);
    expect(isUuidAnyCase(lower.toUpperCase())).toBe(true);
    expect(isUuidAnyCase("0190A8b4-5c3d-7E2f-8a1b-9c0d1e2f3a4b")).toBe(true);
    for (const bad of [
      "",
      lower.slice(1),
      `${lower}0`,
      `${lower}\n`,
      lower.replace(/-/g, ""),
      `${lower.slice(0, 8)}0${lower.slice(9)}`, // a digit where a dash goes
      `${lower.slice(0, 7)}-${lower.slice(8)}`, // a dash where a digit goes
      lower.replace("a", "g"),
      lower.replace("a", "G"),
      lower.replace("a", "\u0661"), // an Arabic-Indic digit
      lower.replace("a", "\u0161"), // a code above 0xff whose low byte is a letter
      lower.replace("a", "\u0141"), // … and one whose low byte is 'A'
      `{${lower.slice(1, 35)}}`,
    ]) {
      expect(isUuid(bad), bad).toBe(false);
      expect(isUuidAnyCase(bad), bad).toBe(false);
    }
  });

  it("isUuid agrees with the uuid pattern on every one-character change", () => {
    const pattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const anyCase = new RegExp(pattern.source, "i");
    const base = uuidv7();
    for (let at = 0; at < base.length; at++)
      for (let code = 0; code < 0x180; code++) {
        const text = base.slice(0, at) + String.fromCharCode(code) + base.slice(at + 1);
        expect(isUuid(text), text).toBe(pattern.test(text));
        expect(isUuidAnyCase(text), text).toBe(anyCase.test(text));
      }
  });

  it("uuidv7 is version 7, variant 10, and sorts by time", () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe("018bcfe5-6800");
    expect(uuidv7(2 ** 48 - 1).slice(0, 13)).toBe("ffffffff-ffff");
    expect(uuidv7(0).slice(0, 13)).toBe("00000000-0000");
    // The random parts differ from one id to the next.
    const many = new Set(Array.from({ length: 1000 }, () => uuidv7(1).slice(14)));
    expect(many.size).toBe(1000);
  });

  it("public ids are standard base64 of Type:uuid and round-trip", () => {
    const u = uuidv7();
    const id = encodeId("Space", u);
    expect(Buffer.from(id, "base64").toString()).toBe(`Space:${u}`);
    expect(decodeId("Space", id)).toBe(u);
  });

  it("an id of another type, garbage, or a non-uuid payload decodes to null", () => {
    const u = uuidv7();
    expect(decodeId("Tag", encodeId("Space", u))).toBeNull();
    expect(decodeId("Space", "not base64!")).toBeNull();
    expect(decodeId("Space", "")).toBeNull();
    expect(decodeId("Space", Buffer.from("Space:123").toString("base64"))).toBeNull();
  });

  it("ids never contain URL-unsafe characters", () => {
    for (let i = 0; i < 200; i++) expect(encodeId("Space", uuidv7())).not.toMatch(/[+/]/);
  });

  // "DatasetExample:" is 15 bytes (whole base64 groups: decoded without Buffer), "Space:" 6
  // (whole too), "Dataset:" 8 (not whole: the general path).
  const TYPES = ["DatasetExample", "Space", "Dataset", "ExperimentRun"];
  const bufferId = (text: string) => Buffer.from(text, "utf8").toString("base64");

  it("every type's ids decode as Buffer's base64 does, canonical or not", () => {
    for (const type of TYPES) {
      const u = uuidv7();
      const id = encodeId(type, u);
      expect(id).toBe(bufferId(`${type}:${u}`));
      expect(decodeId(type, id)).toBe(u);
      expect(decodeCanonicalId(type, id)).toBe(u);
    }
  });

  it("a uuid that is not lowercase, or not a uuid, is no id of any type", () => {
    for (const type of TYPES) {
      const u = uuidv7();
      for (const text of [
        `${type}:${u.toUpperCase()}`,
        `${type}:${u.slice(0, -1)}g`,
        `${type}:${u.replaceAll("-", "_")}`,
        `${type}:${u.slice(0, -1)}é`,
        `${type}:${u}x`,
        `${type}:${u.slice(0, -1)}`,
        `Other:${u}`,
      ]) {
        expect(decodeId(type, bufferId(text))).toBeNull();
        expect(decodeCanonicalId(type, bufferId(text))).toBeNull();
      }
    }
  });

  it("only the spelling the API gives out is canonical; a damaged id decodes to null", () => {
    for (const type of TYPES) {
      const u = uuidv7();
      const id = encodeId(type, u);
      for (let at = 0; at < id.length; at++)
        for (const c of ["=", "!", "é", "-", "_"]) {
          const damaged = id.slice(0, at) + c + id.slice(at + 1);
          if (damaged !== id) expect(decodeCanonicalId(type, damaged)).toBeNull();
        }
      expect(decodeCanonicalId(type, id.slice(0, -4))).toBeNull();
      expect(decodeCanonicalId(type, `${id}AAAA`)).toBeNull();
    }
    // "Dataset:<uuid>" is 44 bytes: its last group carries unused bits, which a decoder ignores.
    const u = uuidv7();
    const id = encodeId("Dataset", u);
    expect(id.endsWith("=")).toBe(true);
    const last = id.at(-2)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const other = alphabet[alphabet.indexOf(last) + 1]!;
    const loose = `${id.slice(0, -2)}${other}=`;
    expect(decodeId("Dataset", loose)).toBe(u);
    expect(decodeCanonicalId("Dataset", loose)).toBeNull();
  });

  it("every character of an aligned type's uuid part is checked against the alphabet", () => {
    const u = uuidv7();
    const id = encodeId("DatasetExample", u);
    const prefixLength = bufferId("DatasetExample:").length;
    for (let code = 0; code < 256; code++) {
      const c = String.fromCharCode(code);
      const valid = /[A-Za-z0-9+/]/.test(c);
      for (const at of [prefixLength, id.length - 1]) {
        const changed = id.slice(0, at) + c + id.slice(at + 1);
        const expected = valid ? decodeIdByBuffer(changed) : null;
        expect(decodeId("DatasetExample", changed)).toBe(expected);
      }
    }
  });
  it("isUuidList takes one or more uuids joined by commas, and nothing else", () => {
    const [a, b] = [uuidv7(), uuidv7()];
    expect(isUuidList(a)).toBe(true);
    expect(isUuidList(`${a},${b}`)).toBe(true);
    for (const bad of ["", ",", `${a},`, `,${a}`, `${a},,${b}`, `${a}, ${b}`, `${a};${b}`])
      expect(isUuidList(bad), bad).toBe(false);
    const list = `${a},${b}`;
    for (let at = 0; at < list.length; at++)
      // Beyond Latin-1 too, each one a character whose low byte would pass: "0", "a", "-", ",".
      for (const c of [
        "A",
        "g",
        "-",
        ",",
        "0",
        "\n",
        "\u0661",
        "\u0130",
        "\u0161",
        "\u012d",
        "\u012c",
      ]) {
        const text = list.slice(0, at) + c + list.slice(at + 1);
        expect(isUuidList(text), text).toBe(text.split(",").every(isUuid));
      }
  });

  it("joinedUuidsOf reads every id as decodeCanonicalId does, together or one by one", () => {
    const oneByOne = (type: string, ids: readonly string[]) =>
      ids.map((id) => decodeCanonicalId(type, id) ?? "").join(",");
    const uuids = Array.from({ length: 3 }, () => uuidv7());
    for (const type of ["DatasetExample", "Dataset", "Space"]) {
      const ids = uuids.map((u) => encodeId(type, u));
      expect(joinedUuidsOf(type, ids)).toBe(uuids.join(","));
      expect(joinedUuidsOf(type, [])).toBe("");
      expect(joinedUuidsOf(type, [ids[0]!, ids[0]!])).toBe(`${uuids[0]},${uuids[0]}`);
    }
    const ids = uuids.map((u) => encodeId("DatasetExample", u));
    // Each character of the middle id changed to each of 0-255 and a few beyond: whatever it
    // then names (mostly nothing), the ids around it still decode.
    const samples = [
      ...Array.from({ length: 256 }, (_, c) => String.fromCharCode(c)),
      "\u0100",
      "\u0161",
      "\u{1f600}",
    ];
    for (let at = 0; at < ids[1]!.length; at++)
      for (const c of samples) {
        const changed = [ids[0]!, ids[1]!.slice(0, at) + c + ids[1]!.slice(at + 1), ids[2]!];
        expect(joinedUuidsOf("DatasetExample", changed), changed[1]).toBe(
          oneByOne("DatasetExample", changed),
        );
      }
    // Whole ids of the type whose text is no uuid, holds the separator, or is of another type.
    for (const text of [
      "0190A8B4-5C3D-7E2F-8A1B-9C0D1E2F3A4B",
      "0190a8b4,5c3d-7e2f-8a1b-9c0d1e2f3a4b",
      "0190a8b4-5c3d-7e2f-8a1b-9c0d1e2f3a4b".replace("a", "\u00e9"),
    ]) {
      const odd = [ids[0]!, bufferId(`DatasetExample:${text}`), ids[2]!];
      expect(joinedUuidsOf("DatasetExample", odd), text).toBe(`${uuids[0]},,${uuids[2]}`);
    }
    expect(joinedUuidsOf("DatasetExample", [ids[0]!, encodeId("Dataset", uuids[1]!)])).toBe(
      `${uuids[0]},`,
    );
  });
});

/** The general path, by Buffer, as the aligned types' fast path must agree with. */
function decodeIdByBuffer(id: string): string | null {
  const text = Buffer.from(id, "base64").toString("utf8");
  const m = /^DatasetExample:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(
    text,
  );
  return m ? m[1]! : null;
}

describe("publicIdSql", () => {
  it("encodes in SQL what encodeId encodes, and refuses a type Postgres would wrap", () => {
    expect(publicIdSql("User", "a.annotator_id")).toBe(
      "encode(convert_to('User:' || (a.annotator_id)::text, 'UTF8'), 'base64')",
    );
    // 20 letters + ':' + 36 = 57 bytes, the most one 76-character base64 line holds.
    expect(() => publicIdSql("A".repeat(20), "x")).not.toThrow();
    expect(encodeId("A".repeat(20), uuidv7())).toHaveLength(76);
    expect(() => publicIdSql("AnnotationQueueRecord", "x")).toThrow(/cannot be encoded/);
    expect(() => publicIdSql("User'; drop", "x")).toThrow(/cannot be encoded/);
    expect(() => publicIdSql("", "x")).toThrow(/cannot be encoded/);
  });
});
