import type { Database } from "bun:sqlite";

export interface ExecutedStatement {
  sql: string;
  params: Record<string, string | number>;
}

/** A connection whose statements (their SQL and the values they ran with) are recorded in `executed`. */
export function tracedDatabase(db: Database): { db: Database; executed: ExecutedStatement[] } {
  const executed: ExecutedStatement[] = [];
  const recording = (sql: string, statement: object) =>
    new Proxy(statement, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (!["all", "get", "run", "values"].includes(prop as string)) return value.bind(target);
        return (params?: Record<string, string | number>) => {
          executed.push({ sql, params: params ?? {} });
          return value.call(target, params);
        };
      },
    });
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === "query") return (sql: string) => recording(sql, target.query(sql));
      // getters read private fields of the database itself, not of this proxy
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: proxy, executed };
}
