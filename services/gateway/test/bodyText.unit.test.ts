import { describe, expect, it } from "vitest";
import { canonicalValueEnd, memberElementTexts, rememberBodyText } from "../src/http/bodyText.ts";

/** The body JSON.parse reads from `text`, with its text remembered as the body reader does. */
function received(text: string): unknown {
  const body = JSON.parse(text) as object;
  rememberBodyText(body, text);
  return body;
}

const elements = (text: string, name = "examples") => memberElementTexts(received(text), name);

/** Whether the text alone is read as exactly what JSON.stringify writes for its value. */
const canonical = (text: string) => canonicalValueEnd(text, 0) === text.length;

describe("canonicalValueEnd", () => {
  it("takes what JSON.stringify writes, escapes and nesting included", () => {
    const values: unknown[] = [
      {},
      [],
      { a: 1, b: [true, false, null, -1.5, 1e-7, 1e21, 0.1], c: { d: {} } },
      { text: 'quote " backslash \\ newline \n tab \t controls \u0001\u001f\b\f\r end' },
      { unicode: "é ü 中文 🎉 \u2028 \u2029", "": "empty key", __proto__x: 1 },
      { ["__proto__"]: 1 },
      { 0: "a", 1: "b", 4294967294: "c", 4294967295: "not an index", z: 1 },
      { 'key with "quote"': ["a", ["b", ["c"]]] },
      { n: Number.MAX_SAFE_INTEGER, m: -Number.MIN_VALUE, big: 1.7976931348623157e308 },
      "just a string",
      42,
    ];
    for (const value of values)
      expect(canonical(JSON.stringify(value)), JSON.stringify(value)).toBe(true);
    const parsedProto = JSON.parse('{"__proto__":{"x":1}}') as object;
    expect(canonical(JSON.stringify(parsedProto))).toBe(true);
  });

  it("refuses every other spelling of a value", () => {
    const others = [
      '{ "a":1}',
      '{"a": 1}',
      '{"a":1 }',
      "[1, 2]",
      '{"a":1.0}',
      '{"a":1E2}',
      '{"a":1e2}',
      '{"a":-0}',
      '{"a":1e400}',
      '{"a":12345678901234567890}',
      '{"a":0.10}',
      '{"a":"\\/"}',
      '{"a":"\\u0041"}',
      '{"a":"\\u00E9"}',
      '{"a":"\\u001F"}',
      '{"a":"\\u000a"}',
      '{"a":"\\ud83c\\udf89"}',
      '{"a":1,"a":2}',
      '{"a":{"b":1,"b":1}}',
      '{"b":1,"1":2}',
      '{"2":1,"1":2}',
      '{"4294967294":1,"a":2,"4294967293":3}',
      '{"a\\u0062":1}',
    ];
    for (const text of others) {
      expect(canonical(text), text).toBe(false);
      // And indeed JSON.stringify writes something else for each of them.
      expect(JSON.stringify(JSON.parse(text)), text).not.toBe(text);
    }
  });

  it("accepts the escapes JSON.stringify writes for control characters", () => {
    for (let c = 0; c < 0x20; c++) {
      const text = JSON.stringify({ s: `a${String.fromCharCode(c)}b` });
      expect(canonical(text), text).toBe(true);
    }
  });

  it("reads a value nested deeper than the call stack goes", () => {
    const deep = `${"[".repeat(200_000)}1${"]".repeat(200_000)}`;
    expect(canonical(deep)).toBe(true);
    expect(canonical(`${"[".repeat(200_000)}1.0${"]".repeat(200_000)}`)).toBe(false);
  });

  it("agrees with JSON.stringify on generated values and spellings", () => {
    let seed = 7;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const ATOMS = [
      '"x"',
      '"a\\nb"',
      '"\\u0041"',
      '"\\/"',
      "1",
      "1.0",
      "-0",
      "2e3",
      "0.5",
      "true",
      "null",
    ];
    const KEYS = ['"k"', '"q"', '"1"', '"\\u006b"', '"k2"'];
    const gen = (depth: number): string => {
      const space = () => (next() < 0.1 ? " " : "");
      const r = next();
      if (depth > 3 || r < 0.4) return pick(ATOMS);
      if (r < 0.7) {
        const n = Math.floor(next() * 4);
        return `[${Array.from({ length: n }, () => space() + gen(depth + 1)).join(",")}]`;
      }
      const n = Math.floor(next() * 4);
      return `{${Array.from({ length: n }, () => `${pick(KEYS)}:${space()}${gen(depth + 1)}`).join(",")}}`;
    };
    let agreed = 0;
    for (let n = 0; n < 5000; n++) {
      const text = gen(0);
      const same = JSON.stringify(JSON.parse(text)) === text;
      expect(canonical(text), text).toBe(same);
      if (same) agreed++;
    }
    // Both answers were exercised.
    expect(agreed).toBeGreaterThan(500);
    expect(agreed).toBeLessThan(4500);
  });
});

describe("memberElementTexts", () => {
  it("gives each element's text where it is JSON.stringify's, undefined where not", () => {
    const text =
      '{ "name" : "d", "examples" : [ {"q":"a"} , {"q": "b"}, {"q":1.0}, {"q":[1,{"r":"\\n"}]} ] }';
    expect(elements(text)).toEqual(['{"q":"a"}', undefined, undefined, '{"q":[1,{"r":"\\n"}]}']);
  });

  it("finds the member wherever it is, however its key is spelled, and the last of two", () => {
    expect(elements('{"examples":[{"a":1}],"name":"x"}')).toEqual(['{"a":1}']);
    expect(elements('{"name":{"examples":[{"no":1}]},"ex\\u0061mples":[{"a":2}]}')).toEqual([
      '{"a":2}',
    ]);
    expect(elements('{"examples":[{"first":1}],"examples":[{"second":2},{"x":3}]}')).toEqual([
      '{"second":2}',
      '{"x":3}',
    ]);
    expect(elements('{"examples":[{"first":1}],"examples":"not a list"}')).toBeNull();
    expect(elements('{"examples":[]}')).toEqual([]);
    expect(elements('{"examples":[{"a":"]\\"}["}]}')).toEqual(['{"a":"]\\"}["}']);
  });

  it("knows nothing of a body it did not read, or a member that is not an array", () => {
    expect(memberElementTexts({ examples: [{ a: 1 }] }, "examples")).toBeNull();
    expect(elements('{"examples":{"a":1}}')).toBeNull();
    expect(elements('{"other":[1]}')).toBeNull();
    expect(memberElementTexts(received("[1,2]"), "examples")).toBeNull();
  });

  it("reads 1000 examples of 8 KiB as the slices of the body", () => {
    const examples = Array.from({ length: 1000 }, (_, n) => ({
      input: `example ${n} ${'word "quoted"\n'.repeat(600)}`,
    }));
    const text = JSON.stringify({ name: "big", space_id: "s", examples });
    const texts = elements(text)!;
    expect(texts).toHaveLength(1000);
    texts.forEach((t, n) => expect(t).toBe(JSON.stringify(examples[n])));
  });
});
