// The shared given/when/then helpers for deciders.
export { givenOf, problem } from "@argus/eventstore/testing";
