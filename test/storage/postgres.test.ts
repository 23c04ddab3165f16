import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { SEARCH } from "../../src/storage/postgres/sessions.ts";
import { dropSchema, postgresAvailable, TEST_DATABASE_URL, uniqueSchema } from "../helpers/servers.ts";
import { storeSuite } from "./suite.ts";

const schema = uniqueSchema("store");

storeSuite({
  name: "postgres",
  available: await postgresAvailable(),
  open: (clock) => pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4, now: clock }),
  exec: async (s, statement) => {
    await (s as PgStorage).sql.unsafe(statement);
  },
  searchPlan: async (s, text) => {
    const plan = await (s as PgStorage).sql.unsafe(`EXPLAIN ${SEARCH}`, [`%${text}%`, 100]);
    return plan.map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"]).join("\n");
  },
  searchIndex: "sessions_search_title",
  cleanup: () => dropSchema(schema),
});
