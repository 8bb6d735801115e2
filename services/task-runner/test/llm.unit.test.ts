import { describe, expect, it } from "vitest";
import {
  instructions,
  parseVerdict,
  render,
  renderAs,
  templateVariables,
} from "../src/worker/llm.ts";
import { messagesFor } from "../src/worker/runExperiment.ts";
import { chainedRunId } from "../src/worker/runWorker.ts";

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

describe("a generation's messages", () => {
  const config = (format: string, content: string) => ({
    input_variable_format: format,
    messages: [
      { role: "SYSTEM", content: "Be brief." },
      { role: "USER", content },
    ],
  });
  it("fills an example's fields by the variable format; others stay as written", () => {
    const fields = { question: "why?", n: 3, meta: { a: 1 }, gone: null };
    expect(messagesFor(config("F_STRING", "Q {question} {n} {meta} {gone}"), fields)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: 'Q why? 3 {"a":1} {gone}' },
    ]);
    expect(messagesFor(config("MUSTACHE", "Q {{ question }} {question}"), fields)[1]).toEqual({
      role: "user",
      content: "Q why? {question}",
    });
    expect(messagesFor(config("NONE", "Q {question}"), fields)[1]!.content).toBe("Q {question}");
    expect(renderAs("F_STRING", "{a}{b}", { a: "1" })).toBe("1{b}");
  });
  it("a role the chat APIs cannot send is refused", () => {
    expect(() => messagesFor({ messages: [{ role: "TOOL", content: "x" }] }, {})).toThrow(
      /role TOOL is not executed/,
    );
  });
});

describe("a chained run's id", () => {
  it("is a uuid, the same for the same run and place, different otherwise", () => {
    const a = chainedRunId("0190c0de-0000-7000-8000-000000000001", 0);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(chainedRunId("0190c0de-0000-7000-8000-000000000001", 0)).toBe(a);
    expect(chainedRunId("0190c0de-0000-7000-8000-000000000001", 1)).not.toBe(a);
    expect(chainedRunId("0190c0de-0000-7000-8000-000000000002", 0)).not.toBe(a);
  });
});
