import { z } from "zod";
import { AGENT_ID_PATTERN, type AgentProfile } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";

/** Largest character file `prx agents import` reads (elizaOS's published characters are a few KiB to ~100 KiB). */
export const CHARACTER_MAX_BYTES = 1024 * 1024;

/** As elizaOS's character provider: at most this many bio lines, message examples and post examples in a prompt. */
export const CHARACTER_BIO_LINES = 10;
export const CHARACTER_LORE_LINES = 10;
export const CHARACTER_MESSAGE_EXAMPLES = 5;
export const CHARACTER_POST_EXAMPLES = 50;
export const CHARACTER_OTHER_TOPICS = 5;

const lines = z.array(z.string()).optional();

/** One message of an example conversation: elizaOS 1.x names the speaker `name`, 0.x `user`. */
const ExampleMessageSchema = z.looseObject({
  name: z.string().optional(),
  user: z.string().optional(),
  content: z.looseObject({
    text: z.string().default(""),
    action: z.string().optional(),
    actions: z.array(z.string()).optional(),
  }),
});

/**
 * An elizaOS character file (1.x `Character`, and 0.x files with `lore` and `user`-named examples): the fields prx
 * reads; others (`id`, `username`, `knowledge`, `templates`, `clients`, `modelProvider`, ...) are allowed and left out.
 */
export const CharacterSchema = z.looseObject({
  name: z.string().min(1).max(128),
  system: z.string().optional(),
  bio: z.union([z.string(), z.array(z.string())]).optional(),
  lore: lines,
  adjectives: lines,
  topics: lines,
  style: z.looseObject({ all: lines, chat: lines, post: lines }).optional(),
  messageExamples: z.array(z.array(ExampleMessageSchema)).optional(),
  postExamples: lines,
  settings: z.record(z.string(), z.unknown()).optional(),
  plugins: z.array(z.string()).optional(),
});
export type Character = z.infer<typeof CharacterSchema>;

/** LIMIT_EXCEEDED when a character file of `size` bytes is past CHARACTER_MAX_BYTES. */
export function checkCharacterSize(size: number, source: string): void {
  if (size > CHARACTER_MAX_BYTES) {
    throw new PrxError("LIMIT_EXCEEDED", `${source} is ${size} bytes, the limit is ${CHARACTER_MAX_BYTES}`, {
      hint: "a character file holds a persona, not knowledge: move long documents out of it",
    });
  }
}

/** The character file's text as a character; CONFIG_INVALID naming the field when it is not one. */
export function parseCharacter(text: string, source: string): Character {
  checkCharacterSize(Buffer.byteLength(text, "utf8"), source);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new PrxError("CONFIG_PARSE", `${source} is not JSON: ${(cause as Error).message}`, {
      cause,
      hint: "prx imports elizaOS character files (.json); a character.ts must be exported to JSON first",
    });
  }
  const parsed = CharacterSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PrxError("CONFIG_INVALID", `${source}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`, {
      hint: "an elizaOS character needs at least a name; bio, lore, style and examples are read when present",
    });
  }
  return parsed.data;
}

/** An agent id made of the character's name ("Sam Altman" -> "sam-altman"). */
export function characterId(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, 32)
    .replace(/[-_]+$/, "");
  return AGENT_ID_PATTERN.test(slug) ? slug : "character";
}

/**
 * The system prompt elizaOS's character provider composes for a chat (plugin-bootstrap 1.x: about, adjective,
 * topics, message directions, example conversations, system; lore after the bio, as 0.x did), with its random picks
 * made fixed: the first lines, the first adjective and topic. A prompt that does not change from turn to turn keeps
 * the provider's prompt cache warm.
 */
export function composeCharacterPrompt(character: Character): string {
  const { name } = character;
  const header = (title: string, body: string) => (body.trim() ? `${title}\n${body}` : "");
  const bio = Array.isArray(character.bio) ? character.bio.slice(0, CHARACTER_BIO_LINES).join(" ") : (character.bio ?? "");
  const lore = (character.lore ?? []).slice(0, CHARACTER_LORE_LINES).join("\n");
  const about = header(`# About ${name}`, [bio, lore].filter((part) => part.trim()).join("\n"));
  const adjective = character.adjectives?.[0];
  const [topic, ...others] = character.topics ?? [];
  const directions = header(`# Message Directions for ${name}`, [...(character.style?.all ?? []), ...(character.style?.chat ?? [])].join("\n"));
  const messages = header(`# Example Conversations for ${name}`, exampleConversations(character));
  const posts = header(`# Example Posts for ${name}`, (character.postExamples ?? []).slice(0, CHARACTER_POST_EXAMPLES).join("\n"));
  return [
    about,
    adjective ? `${name} is ${adjective}` : "",
    topic ? `${name} is currently interested in ${topic}` : "",
    others.length ? `${name} is also interested in ${joinTopics(others.slice(0, CHARACTER_OTHER_TOPICS))}` : "",
    directions,
    messages,
    posts,
    character.system ?? "",
  ]
    .filter((part) => part.trim() !== "")
    .join("\n\n");
}

/** "a, b and c", as elizaOS writes the topic list. */
function joinTopics(topics: string[]): string {
  return topics.length <= 1 ? (topics[0] ?? "") : `${topics.slice(0, -1).join(", ")} and ${topics.at(-1)}`;
}

/** Up to CHARACTER_MESSAGE_EXAMPLES conversations, "speaker: text" a line; placeholders become fixed names. */
function exampleConversations(character: Character): string {
  return (character.messageExamples ?? [])
    .slice(0, CHARACTER_MESSAGE_EXAMPLES)
    .map((conversation) =>
      conversation
        .map((message) => {
          const speaker = message.name ?? message.user ?? "user";
          const actions = message.content.action ?? message.content.actions?.join(", ");
          return placeholders(`${speaker}: ${message.content.text}${actions ? ` (actions: ${actions})` : ""}`, character.name);
        })
        .join("\n"),
    )
    .join("\n\n");
}

/** elizaOS's {{name1}}…, 0.x's {{user1}}… and {{agentName}}: the example's other speakers and the character. */
function placeholders(text: string, name: string): string {
  return text.replace(/\{\{(?:name|user)(\d+)\}\}/g, (_, n: string) => `User${n}`).replaceAll("{{agentName}}", name);
}

/** The `[agents.<id>]` table a character becomes: its name, bio and composed prompt, with its own memory. */
export function characterProfile(character: Character): AgentProfile {
  const bio = character.bio === undefined ? undefined : Array.isArray(character.bio) ? character.bio : [character.bio];
  return {
    name: character.name,
    ...(bio ? { bio } : {}),
    system_prompt: composeCharacterPrompt(character),
    tools: { deny: [] },
    memory_scope: "own",
  };
}
