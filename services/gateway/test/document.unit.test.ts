import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_DOCUMENT_PATH, loadDocument, parseYaml } from "../src/openapi/document.ts";

const partsDir = new URL("paths/", new URL(".", DEFAULT_DOCUMENT_PATH));
const files = [
  DEFAULT_DOCUMENT_PATH,
  ...readdirSync(partsDir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => new URL(f, partsDir)),
];

describe("the document as the gateway reads it", () => {
  it("every file reads as the yaml package (which writes the served text) reads it", () => {
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      expect(parseYaml(text), String(file)).toEqual(parse(text));
    }
  });

  it("reads the core schema only: a date and a merge key stay what they are written as", () => {
    const text = "day: 2026-11-30\nbase: &b {x: 1}\nmerged: {<<: *b}\n";
    expect(parseYaml(text)).toEqual(parse(text));
    expect(parseYaml(text)).toMatchObject({ day: "2026-11-30", merged: { "<<": { x: 1 } } });
  });

  it("serves text that reads back as the document it loaded", () => {
    const loaded = loadDocument();
    expect(parse(loaded.text)).toEqual(loaded.document);
  });
});
