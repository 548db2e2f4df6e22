import type { CompiledQuery } from "kysely";

/** A compiled query whose parameters are filled in by name on each run. */
export interface Precompiled<Row, Values> {
  with(values: Values): CompiledQuery<Row>;
}

/**
 * Compiles `build` once, with a marker in each value, and learns from the markers which value
 * goes to which placeholder: the SQL is the dialect's own, and no parameter can be misplaced.
 */
export function precompile<Row, Values extends object>(names: readonly (keyof Values & string)[], build: (values: Values) => CompiledQuery<Row>): Precompiled<Row, Values> {
  const markers = Object.fromEntries(names.map((name) => [name, `\u0000${name}`])) as Values;
  const compiled = build(markers);
  const order = compiled.parameters.map((parameter) => names.find((name) => parameter === `\u0000${name}`));
  if (order.some((name) => name === undefined) || names.some((name) => !order.includes(name))) {
    throw new Error(`precompiled query takes other parameters than ${names.join(", ")}`);
  }
  return { with: (values) => ({ ...compiled, parameters: order.map((name) => values[name as keyof Values]) }) };
}
