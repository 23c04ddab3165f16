import { pgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, postgresAvailable, TEST_DATABASE_URL, uniqueSchema } from "../helpers/servers.ts";
import { storeSuite } from "./suite.ts";

const schema = uniqueSchema("store");

storeSuite({
  name: "postgres",
  available: await postgresAvailable(),
  open: (clock) => pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4, now: clock }),
  cleanup: () => dropSchema(schema),
});
