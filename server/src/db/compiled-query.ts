import type { CompiledQuery, Compilable, RawBuilder } from 'kysely';
import type { Db } from './db.ts';

/**
 * A value handed to a query's builder in place of one of its arguments, found again among the
 * compiled parameters. An object of its own: no real parameter can be equal to it.
 */
class Placeholder {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/**
 * A hot query of fixed shape, built and compiled by Kysely once (on its first run) and then run as
 * that SQL text with each call's arguments: building and compiling a query on every call was a
 * tenth of a content read's main-thread CPU (docs/decisions.md › Hot queries compiled once). It runs
 * through `db.executeQuery`, so the dialect's guard (db.ts) and a `PREPARED` mark at its end apply as
 * to any query on `db`; a repository built on a transaction's handle compiles its own.
 *
 * `build` must use each argument only as a parameter value (`where('id', '=', id)`, `${id}` in
 * `sql`): it is called once with placeholders, so an argument it inspects, branches on or turns
 * into SQL text would be frozen at that first call. An argument that does not come out as a
 * parameter is refused on the first run; branching on one cannot be seen, and is the caller's to
 * avoid. `arity` is the number of arguments (`build.length` unless given, for a rest parameter).
 */
export function compiledQuery<A extends unknown[], R>(
  db: Db,
  build: (...args: A) => Compilable<R> | RawBuilder<R>,
  arity: number = build.length,
): (...args: A) => Promise<R[]> {
  let compiled: { query: CompiledQuery<R>; slots: readonly (Placeholder | { value: unknown })[] } | undefined;

  function compile() {
    const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
    const builder = build(...(placeholders as unknown as A));
    const query = 'isRawBuilder' in builder ? builder.compile(db) : builder.compile();
    const seen = new Set<number>();
    const slots = query.parameters.map((value) => {
      if (!(value instanceof Placeholder)) return { value };
      seen.add(value.index);
      return value;
    });
    if (seen.size !== arity) {
      const missing = placeholders.filter((p) => !seen.has(p.index)).map((p) => p.index);
      throw new Error(`compiledQuery: argument(s) ${missing.join(', ')} are not parameters of the query`);
    }
    return { query, slots };
  }

  return async (...args: A): Promise<R[]> => {
    compiled ??= compile();
    const { query, slots } = compiled;
    const parameters = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      parameters[i] = slot instanceof Placeholder ? args[slot.index] : slot.value;
    }
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}
