import { afterEach, describe, expect, it } from "vitest";
import {
  HELD_MAX_BYTES,
  HELD_MIN_BYTES,
  heldAppended,
  holdAppended,
  holdWhileLeading,
  releaseAppended,
} from "../src/streams/appendedData.ts";

const text = (bytes: number) => new Uint8Array(bytes);
const ids = () => [...heldAppended().keys()];

let stops: (() => void)[] = [];
const lead = () => {
  const stop = holdWhileLeading();
  stops.push(stop);
  return stop;
};
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
});

describe("appended data held for the relay", () => {
  it("holds nothing while no relay of the process leads", () => {
    holdAppended("a", text(HELD_MIN_BYTES));
    expect(ids()).toEqual([]);
  });

  it("holds large data only, from the smallest size on", () => {
    lead();
    holdAppended("small", text(HELD_MIN_BYTES - 1));
    holdAppended("edge", text(HELD_MIN_BYTES));
    expect(ids()).toEqual(["edge"]);
  });

  it("holds what the bus carries of a large event when its producer gave it", () => {
    lead();
    holdAppended("small", text(HELD_MIN_BYTES - 1), "{}");
    holdAppended("large", text(HELD_MIN_BYTES), '{"n":1}');
    holdAppended("whole", text(HELD_MIN_BYTES));
    expect(
      [...heldAppended()].map(([id, d]) => [id, new TextDecoder().decode(d.bytes), d.cut]),
    ).toEqual([
      ["large", '{"n":1}', true],
      ["whole", "\0".repeat(HELD_MIN_BYTES), false],
    ]);
  });

  it("lets the oldest go beyond the bound, and forgets what was released", () => {
    lead();
    const part = HELD_MAX_BYTES / 4;
    for (const id of ["1", "2", "3", "4"]) holdAppended(id, text(part));
    expect(ids()).toEqual(["1", "2", "3", "4"]);
    holdAppended("5", text(1 + HELD_MIN_BYTES));
    expect(ids()).toEqual(["2", "3", "4", "5"]);
    releaseAppended("3");
    releaseAppended("nothing");
    holdAppended("6", text(part - HELD_MIN_BYTES - 1));
    expect(ids()).toEqual(["2", "4", "5", "6"]);
    holdAppended("7", text(HELD_MAX_BYTES + 1));
    expect(ids()).toEqual([]);
  });

  it("hands out a copy, and drops everything when the last leader stops", () => {
    const first = lead();
    const second = lead();
    holdAppended("a", text(HELD_MIN_BYTES));
    const seen = heldAppended();
    releaseAppended("a");
    expect([...seen.keys()]).toEqual(["a"]);
    holdAppended("b", text(HELD_MIN_BYTES));
    first();
    first();
    expect(ids()).toEqual(["b"]);
    second();
    expect(ids()).toEqual([]);
    holdAppended("c", text(HELD_MIN_BYTES));
    expect(ids()).toEqual([]);
  });
});
