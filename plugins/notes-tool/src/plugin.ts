// notes-tool: one tool, `notes`, with an action argument. Notes live in kv as "note:<id>" (JSON), the next id in
// "next_id"; ids grow, so listing the keys lists the notes oldest first.
import { config, defineTool, kv, log } from "@prx/kit";

interface Note {
  id: number;
  text: string;
  tags: string[];
  created: string;
}

type Args =
  | { action: "add"; text: string; tags?: string[] }
  | { action: "list" }
  | { action: "find"; query: string }
  | { action: "delete"; id: number };

const PREFIX = "note:";
const key = (id: number) => `${PREFIX}${String(id).padStart(10, "0")}`;
const all = (): Note[] => kv.keys(PREFIX).map((k) => kv.getJson<Note>(k)!);
const show = (n: Note) => `#${n.id} ${n.text}${n.tags.length > 0 ? ` [${n.tags.join(", ")}]` : ""}`;

function add(text: string, tags: string[]): string {
  if (text.trim().length === 0) throw new Error("a note needs some text");
  const id = kv.increment("next_id");
  kv.setJson(key(id), { id, text: text.trim(), tags, created: new Date().toISOString() } satisfies Note);
  const max = config.number("max_notes", 200);
  const keys = kv.keys(PREFIX);
  for (const old of keys.slice(0, Math.max(0, keys.length - max))) kv.delete(old);
  log.info(`note #${id} added`);
  return `noted (#${id})`;
}

export const toolExports = defineTool<Args>({
  name: "notes",
  description: "Keeps short notes for the user: add one, list them, find some by a word or a tag, delete one by id",
  parameters: {
    type: "object",
    properties: {
      action: { type: "string", enum: ["add", "list", "find", "delete"] },
      text: { type: "string", description: "add: the note" },
      tags: { type: "array", items: { type: "string" }, description: "add: optional tags" },
      query: { type: "string", description: "find: a word or a tag" },
      id: { type: "number", description: "delete: the note's id" },
    },
    required: ["action"],
  },
  execute(args) {
    switch (args.action) {
      case "add":
        return add(String(args.text ?? ""), Array.isArray(args.tags) ? args.tags.map(String) : []);
      case "list": {
        const notes = all();
        return notes.length === 0 ? "no notes yet" : notes.map(show).join("\n");
      }
      case "find": {
        const q = String(args.query ?? "").toLowerCase();
        const found = all().filter((n) => n.text.toLowerCase().includes(q) || n.tags.some((t) => t.toLowerCase() === q));
        return found.length === 0 ? `no note matches "${args.query}"` : found.map(show).join("\n");
      }
      case "delete":
        return kv.delete(key(Number(args.id))) ? `deleted #${args.id}` : `there is no note #${args.id}`;
      default:
        throw new Error(`unknown action "${(args as { action?: unknown }).action}": use add, list, find or delete`);
    }
  },
});
