import { createHash } from "node:crypto";
import type { PromptLabelDeleted, PromptLabelSet, PromptVersionContent } from "@argus/contracts";
import { invalid, requireMaxLength } from "../shared/catalogRules.ts";

const LABEL_MAX = 255;
const LABELS_PER_VERSION_MAX = 100;
const COMMIT_MESSAGE_MAX = 1000;

/** Same content and id give the same hash; the id makes two identical commits distinct. */
export function commitHash(versionId: string, content: PromptVersionContent): string {
  return createHash("sha256")
    .update(JSON.stringify([versionId, content]))
    .digest("hex")
    .slice(0, 40);
}

export function checkedContent(v: PromptVersionContent): PromptVersionContent {
  if (v.commit_message.trim().length === 0) throw invalid("commit_message must not be empty");
  requireMaxLength("commit_message", v.commit_message, COMMIT_MESSAGE_MAX);
  if (v.messages.length === 0) throw invalid("at least one message is required");
  // NONE is deprecated and means F_STRING, so the stored version says what it does.
  const format = v.input_variable_format === "" || v.input_variable_format === "NONE";
  return { ...v, input_variable_format: format ? "F_STRING" : v.input_variable_format };
}

export function requireLabels(labels: readonly string[]): void {
  if (labels.length > LABELS_PER_VERSION_MAX)
    throw invalid(`at most ${LABELS_PER_VERSION_MAX} labels per version`);
  for (const label of labels) {
    if (label.trim().length === 0) throw invalid("a label must not be empty");
    requireMaxLength("a label", label, LABEL_MAX);
  }
}

type LabelEvent = PromptLabelSet | PromptLabelDeleted;

/**
 * A version's labels replaced: its labels left out are deleted, the wanted ones set here
 * (moving those a sibling version held). Nothing when the version already has exactly these.
 */
export function labelMoves(
  current: Readonly<Record<string, string>>,
  on: { prompt_id: string; space_id: string; version_id: string },
  labels: readonly string[],
  at: string,
): LabelEvent[] {
  const wanted = new Set(labels);
  const removed: LabelEvent[] = Object.entries(current)
    .filter(([label, v]) => v === on.version_id && !wanted.has(label))
    .map(([label]) => ({ type: "PromptLabelDeleted", data: { ...on, label, deleted_at: at } }));
  const set: LabelEvent[] = [...wanted]
    .filter((label) => current[label] !== on.version_id)
    .map((label) => ({
      type: "PromptLabelSet",
      data: { ...on, label, previous_version_id: current[label] ?? null, set_at: at },
    }));
  return [...removed, ...set];
}
