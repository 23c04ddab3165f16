import type { ToolsConfig } from "../../config/schema.ts";
import type { MemoryBackend } from "../../memory/types.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import type { SessionLinkStore, SessionStore } from "../../storage/types.ts";
import type { CronToolStores } from "./cron.ts";

export interface BuiltinToolsOptions {
  config: ToolsConfig;
  /** Root the file tools are confined to and the shell's working directory. */
  workspace: string;
  /** Called at each call, so the backend can be swapped (config reload, wasm generation). */
  memory: () => MemoryBackend;
  /** Call another tool of the host by name (web_search's mcp backend asks an MCP server's search tool). */
  callTool?: (name: string, rawArguments: string, context: ToolContext) => Promise<ToolResult>;
  /** Folders outside the workspace file_read may read by their full path (never write): the offered skills'. */
  readableDirs?: () => readonly string[];
  /** The workspace's sessions (sessions_list, sessions_history, message_send to a session); without it those refuse. */
  sessions?: () => SessionStore;
  /** Which session made which (delegate); without it delegate refuses. */
  sessionLinks?: () => SessionLinkStore;
  /** How message_send reaches a channel's chat; without it channel targets refuse. */
  deliver?: ChannelDeliver;
  /** The cron tool's jobs (the host's storage); without it the tool refuses every call. */
  cron?: () => CronToolStores;
}

/** A chat of a configured channel that message_send writes to. */
export interface ChannelChat {
  /** `[channels.<name>]`. */
  channel: string;
  chat: string;
  thread: string | null;
}

/**
 * Sends text to a chat of a configured channel (split at its platform's limit), then the `workspace` files it links
 * as a reply's are sent; resolves with the parts and files sent and a note for each linked file that was not.
 */
export type ChannelDeliver = (target: ChannelChat, text: string, signal: AbortSignal, workspace?: string) => Promise<{ parts: number; files?: number; notes?: string[] }>;
