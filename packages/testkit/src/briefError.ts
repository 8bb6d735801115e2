/**
 * An error in one line: its message with its cause's code (fetch says only "fetch failed" by
 * itself). Not platform's describeError, which logs every stack of the cause chain.
 */
export function briefError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? `${err.message} (${code})` : err.message;
}
