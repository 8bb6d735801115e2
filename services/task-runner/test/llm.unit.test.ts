import { describe, expect, it } from "vitest";
import { instructions, parseVerdict, render, templateVariables } from "../src/worker/llm.ts";

const choices = { relevant: 1, "not relevant": 0 };

describe("templates", () => {
  it("finds each variable once, in order, and renders them (unknown ones stay)", () => {
    expect(templateVariables("{input} then { output } and {input} {attributes.llm.x}")).toEqual([
      "input",
      "output",
      "attributes.llm.x",
    ]);
    expect(render("Q: {input} A: {output} {other}", { input: "1+1", output: "2" })).toBe(
      "Q: 1+1 A: 2 {other}",
    );
  });
  it("asks for the labels, and for an explanation first when wanted", () => {
    expect(instructions(["a", "b"], false)).toMatch(/exactly one of these labels: a, b/);
    expect(instructions(["a"], true)).toMatch(/EXPLANATION:.*LABEL:/);
  });
});

describe("reading the model's answer", () => {
  it("takes the LABEL line, with its explanation and the label's score", () => {
    expect(parseVerdict("EXPLANATION: fits well.\nLABEL: relevant", choices, true)).toEqual({
      label: "relevant",
      score: 1,
      explanation: "fits well.",
    });
  });
  it("prefers the longest label the text names; a bare label answer; case and punctuation", () => {
    expect(parseVerdict("LABEL: Not Relevant.", choices, false).label).toBe("not relevant");
    expect(parseVerdict("relevant", choices, false)).toMatchObject({ score: 1, explanation: "" });
    expect(parseVerdict("I think it is not relevant at all", choices, false).label).toBe(
      "not relevant",
    );
  });
  it("an answer without a label is the item's error", () => {
    expect(() => parseVerdict("bananas", choices, false)).toThrow(/no label/);
    expect(() => parseVerdict("irrelevantly", { relevant: 1 }, false)).toThrow(/no label/);
  });
});
