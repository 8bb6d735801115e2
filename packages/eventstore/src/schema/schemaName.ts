const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Schema names are spliced into SQL text (identifiers cannot be bind parameters), so only
 * plain lower-case identifiers are accepted; the result is quoted all the same.
 */
export function quoteSchema(schema: string): string {
  if (!identifier.test(schema)) {
    throw new TypeError(`schema must match ${identifier}: ${JSON.stringify(schema)}`);
  }
  return `"${schema}"`;
}
