// The shared given/when/then helpers for deciders.
export { problem, problemDetail, scenario } from "@argus/eventstore/testing";
