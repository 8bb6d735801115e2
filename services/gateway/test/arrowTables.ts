import { Table, vectorFromArray, type DataType } from "apache-arrow";

/** A table of typed columns, as pandas → pyarrow makes them (nulls where pandas had None/NaN). */
export function table(columns: Record<string, [DataType, unknown[]]>): Table {
  return new Table(
    Object.fromEntries(
      Object.entries(columns).map(([name, [type, values]]) => [
        name,
        vectorFromArray(values, type),
      ]),
    ),
  );
}
