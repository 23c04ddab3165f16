import { z } from "zod";

/** An event published on one replica: origin replica, topic, payload JSON, publish depth. */
export const FabricEventSchema = z.object({ o: z.string().min(1), t: z.string().min(1), p: z.string(), d: z.number().int().min(0) });
export type FabricEvent = z.infer<typeof FabricEventSchema>;

/** A replica's registry entry, written every FABRIC_REFRESH_MS and on every change: when, and the patterns its bus subscribes to. */
export const ReplicaAnnouncementSchema = z.object({ at: z.number(), patterns: z.array(z.string()) });
export type ReplicaAnnouncement = z.infer<typeof ReplicaAnnouncementSchema>;

/**
 * A notice on the peers channel: a replica joined or changed its patterns (`announce`, its registry entry with its
 * id), or left (`leave`).
 */
export const PeerNoticeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("announce"), replica: z.string().min(1), at: z.number(), patterns: z.array(z.string()) }),
  z.object({ kind: z.literal("leave"), replica: z.string().min(1) }),
]);
export type PeerNotice = z.infer<typeof PeerNoticeSchema>;

/** A plugin reload asked through one replica, for every other one. */
export const ReloadRequestSchema = z.object({
  kind: z.literal("reload"),
  id: z.string().min(1),
  from: z.string().min(1),
  name: z.string().min(1).nullable(),
  force: z.boolean(),
  all: z.boolean(),
});
export type ReloadRequest = z.infer<typeof ReloadRequestSchema>;

/** One replica's outcome of a reload. */
export const ReloadReplySchema = z.object({
  id: z.string().min(1),
  replica: z.string().min(1),
  ok: z.boolean(),
  generation: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type ReloadReply = z.infer<typeof ReloadReplySchema>;
