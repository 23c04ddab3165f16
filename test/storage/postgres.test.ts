import { pgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, postgresAvailable, TEST_DATABASE_URL, uniqueSchema } from "../helpers/servers.ts";
import { storeSuite } from "./suite.ts";

const schema = uniqueSchema("store");

storeSuite({
  name: "postgres",
  async open(clock) {
    if (!(await postgresAvailable())) return null;
    return pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4, now: clock });
  },
  async cleanup() {
    if (await postgresAvailable()) await dropSchema(schema);
  },
});
