/**
 * elizaOS rooms, entities and relationships derived from prx sessions: a session is a room; its participants are the
 * agent and the session's user (entity id `user@<sessionId>`); two participants of one session are related.
 */
import type { AgentIdentity } from "../../agent.ts";
import { REMOTE_RELATIONSHIPS_MAX } from "../../limits.ts";
import type { SessionInfo, SessionSource } from "../../types.ts";
import type { Entity, Relationship, Room } from "../../worker-runtime/runtime-types.ts";
import type { Memory } from "../../worker-runtime/types.ts";

export const USER_ENTITY_PREFIX = "user@";
/** The tag of every derived relationship. */
export const SESSION_RELATIONSHIP_TAG = "session";
/** Channels whose sessions are API conversations rather than direct messages. */
const API_CHANNELS = new Set(["openai", "gateway", "webhook"]);

export function userEntityId(sessionId: string): string {
  return `${USER_ENTITY_PREFIX}${sessionId}`;
}

export function roomOf(session: SessionInfo, agent: AgentIdentity): Room {
  return {
    id: session.id,
    name: session.title || session.id,
    agentId: agent.id,
    source: session.channel,
    type: API_CHANNELS.has(session.channel) ? "API" : "DM",
    channelId: session.id,
    metadata: { createdAt: session.createdAt, updatedAt: session.updatedAt, messageCount: session.messageCount },
  };
}

export async function entityOf(entityId: string, sessions: SessionSource, agent: AgentIdentity): Promise<Entity | null> {
  if (entityId === agent.id) return { id: agent.id, names: [agent.name], agentId: agent.id, metadata: {}, components: [] };
  if (!entityId.startsWith(USER_ENTITY_PREFIX)) return null;
  const session = await sessions.get(entityId.slice(USER_ENTITY_PREFIX.length));
  if (!session) return null;
  return {
    id: entityId,
    names: ["user"],
    agentId: agent.id,
    metadata: { roomId: session.id, source: session.channel },
    components: [],
  };
}

function relationship(session: SessionInfo, agent: AgentIdentity, fromUser: boolean): Relationship {
  const user = userEntityId(session.id);
  return {
    id: `rel:${session.id}`,
    sourceEntityId: fromUser ? user : agent.id,
    targetEntityId: fromUser ? agent.id : user,
    agentId: agent.id,
    tags: [SESSION_RELATIONSHIP_TAG],
    metadata: { roomId: session.id },
    createdAt: session.createdAt,
  };
}

/**
 * The user of a session is related to the agent; the agent to the users of its most recent sessions (at most
 * REMOTE_RELATIONSHIPS_MAX). `tags` keeps only relationships carrying every tag asked for.
 */
export async function relationshipsOf(
  query: { entityId: string; tags?: string[] | undefined },
  sessions: SessionSource,
  agent: AgentIdentity,
): Promise<Relationship[]> {
  if ((query.tags ?? []).some((tag) => tag !== SESSION_RELATIONSHIP_TAG)) return [];
  if (query.entityId === agent.id) {
    return (await sessions.list(REMOTE_RELATIONSHIPS_MAX)).map((s) => relationship(s, agent, false));
  }
  if (!query.entityId.startsWith(USER_ENTITY_PREFIX)) return [];
  const session = await sessions.get(query.entityId.slice(USER_ENTITY_PREFIX.length));
  return session ? [relationship(session, agent, true)] : [];
}

/** The user and assistant messages of a session as elizaOS memories of the table "messages", newest first. */
export async function messageMemories(
  sessionId: string,
  sessions: SessionSource,
  agent: AgentIdentity,
  limit: number,
): Promise<Memory[]> {
  const session = await sessions.get(sessionId);
  if (!session) return [];
  return (await sessions.messages(sessionId, limit))
    .filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim() !== "")
    .reverse()
    .map((m) => ({
      id: `${sessionId}#${m.seq}`,
      entityId: m.role === "user" ? userEntityId(sessionId) : agent.id,
      agentId: agent.id,
      roomId: sessionId,
      createdAt: Date.parse(m.createdAt),
      content: { text: m.content, source: session.channel },
      metadata: { type: "message", role: m.role },
    }));
}
