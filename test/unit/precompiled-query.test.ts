import assert from "node:assert/strict";
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from "kysely";
import { precompile } from "../../src/adapters/store/sql/precompiled-query";

/** Compiles only (DummyDriver): what matters is which value lands on which placeholder. */
const db = new Kysely<{ t: { a: string; b: string } }>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

describe("precompiled queries", () => {
  it("puts each value on its placeholders, also a value used twice and in another order than named", () => {
    const query = precompile(["a", "b"] as const, (v: { a: string; b: string }) => sql`select ${v.b}, ${v.a}, ${v.b}`.compile(db));
    const run = query.with({ a: "first", b: "second" });
    assert.equal(run.sql, "select $1, $2, $3");
    assert.deepEqual(run.parameters, ["second", "first", "second"]);
  });

  it("refuses a query that leaves a named value out or takes a value it was not told about", () => {
    assert.throws(() => precompile(["a", "b"] as const, (v: { a: string; b: string }) => sql`select ${v.a}`.compile(db)), /other parameters/);
    assert.throws(() => precompile(["a"] as const, (v: { a: string }) => sql`select ${v.a}, ${"literal"}`.compile(db)), /other parameters/);
  });
});
