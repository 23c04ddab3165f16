import { parseDocument } from "yaml";
import { z } from "zod";
import { PrxError } from "../core/errors.ts";
import { SKILL_NAME_MAX_CHARS, SKILL_NAME_PATTERN, SKILL_NAME_RULE } from "../config/skill-name.ts";
import { SKILL_DESCRIPTION_MAX_CHARS, SKILL_FILE_MAX_BYTES } from "./limits.ts";

const names = z.array(z.string().min(1).max(256)).max(64);

/** OpenClaw's gating (`metadata.openclaw`): what a skill needs to be offered. Unknown keys are kept and ignored. */
export const OpenClawMetadataSchema = z.looseObject({
  always: z.boolean().optional(),
  os: names.optional().describe("process.platform values the skill runs on"),
  requires: z
    .looseObject({
      bins: names.optional().describe("programs that must all be on PATH"),
      anyBins: names.optional().describe("programs of which one must be on PATH"),
      env: names.optional().describe("environment variables that must be set (or given by [skills.entries.<name>] env)"),
      config: names.optional().describe("config.toml keys (dotted) that must be truthy"),
    })
    .optional(),
  primaryEnv: z.string().optional(),
});

/**
 * The one schema of a SKILL.md frontmatter. Unknown keys are kept and ignored (other hosts define their own).
 * `allowed-tools` is the format's space-separated list (a YAML list is taken too).
 */
export const SkillFrontmatterSchema = z.looseObject({
  name: z
    .string()
    .min(1)
    .max(SKILL_NAME_MAX_CHARS)
    .regex(SKILL_NAME_PATTERN, SKILL_NAME_RULE),
  description: z.string().trim().min(1).max(SKILL_DESCRIPTION_MAX_CHARS),
  license: z.string().max(1024).optional(),
  compatibility: z.string().max(500).optional(),
  metadata: z.looseObject({ openclaw: OpenClawMetadataSchema.optional() }).optional(),
  "allowed-tools": z
    .union([z.string().max(4096), z.array(z.string().min(1).max(256)).max(128)])
    .optional()
    .transform((value) => (value === undefined ? undefined : typeof value === "string" ? value.split(/\s+/).filter(Boolean) : value)),
});

export type SkillFrontmatter = z.output<typeof SkillFrontmatterSchema>;
export type OpenClawMetadata = z.output<typeof OpenClawMetadataSchema>;

export interface ParsedSkillFile {
  frontmatter: SkillFrontmatter;
  /** The Markdown after the frontmatter. */
  body: string;
}

function invalid(file: string, why: string): PrxError {
  return new PrxError("SKILL_INVALID", `${file}: ${why}`, {
    hint: "a SKILL.md starts with a YAML frontmatter between --- lines, with name (the folder's name) and description",
  });
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Parse one SKILL.md: its frontmatter with a YAML parser (bounded: the file's size, aliases, unique keys) checked
 * by the one schema, and its body. `folder`: the skill folder's name, which `name` must equal. `file` names it in errors.
 */
export function parseSkillFile(text: string, folder: string, file: string): ParsedSkillFile {
  const size = Buffer.byteLength(text, "utf8");
  if (size > SKILL_FILE_MAX_BYTES) throw invalid(file, `it is ${size} bytes, over ${SKILL_FILE_MAX_BYTES}`);
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FENCE.exec(source);
  if (!match) throw invalid(file, "it has no frontmatter (a first line ---, YAML, and a closing ---)");
  const document = parseDocument(match[1]!, { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) throw invalid(file, `its frontmatter is not valid YAML: ${document.errors[0]!.message}`);
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // the parser's bound on alias expansion (a "billion laughs" document)
    throw invalid(file, `its frontmatter is refused: ${(error as Error).message}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw invalid(file, "its frontmatter is not a mapping of keys");
  const parsed = SkillFrontmatterSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(file, `frontmatter ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  if (parsed.data.name !== folder) throw invalid(file, `name "${parsed.data.name}" differs from its folder's name "${folder}"`);
  return { frontmatter: parsed.data, body: source.slice(match[0].length) };
}
