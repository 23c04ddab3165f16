/**
 * A second process writing to a workspace's memory while the growth suite recalls from it: stores one entry every
 * `interval` ms into the SQLite file given as argv[2] until killed; prints "ready" after its first commit.
 * Usage: bun test/bench/memory-writer.ts <db path> <interval ms>
 */
import { SqliteMemory } from "../../src/memory/sqlite.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { prng, sentence, wordSource } from "./zipf-text.ts";

const [path, interval = "10"] = process.argv.slice(2);
if (!path) throw new Error("usage: memory-writer.ts <db path> <interval ms>");
const memory = new SqliteMemory(() => openSqliteStorage(path).memory);
const word = wordSource(4242);
const random = prng(4242);
let written = 0;
const write = async () => {
  await memory.store(`writer_${process.pid}_${written++}`, sentence(word, random, 6, 18), "core");
  if (written === 1) console.log("ready");
};
await write();
setInterval(write, Number(interval));
