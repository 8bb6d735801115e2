/** One schema change: applied once, in order, and never edited after it shipped. */
export interface Migration {
  id: string;
  sql: string;
}
