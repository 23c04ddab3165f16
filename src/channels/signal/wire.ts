/**
 * signal-cli's HTTP daemon as prx reads it (https://github.com/AsamK/signal-cli/blob/master/man/signal-cli-jsonrpc.5.adoc):
 * JSON-RPC 2.0 at POST /api/v1/rpc, the receive notifications' params on the SSE stream GET /api/v1/events (each
 * event with an id; a reconnect with Last-Event-ID gets the events after it), GET /api/v1/check.
 */
import { z } from "zod";

export const RpcAnswerSchema = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]).nullable(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});

export type RpcAnswer = z.infer<typeof RpcAnswerSchema>;

/** JSON-RPC 2.0's "Method not found": what a single-account daemon answers to the multi-account `listAccounts`. */
export const JSON_RPC_METHOD_NOT_FOUND = -32601;

/** `version`: `{version}`. */
export const VersionSchema = z.looseObject({ version: z.string().max(64) });

/** `listAccounts` of a multi-account daemon: each local account's number (null for a numberless one) and ACI. */
export const AccountListSchema = z.array(z.looseObject({ number: z.string().max(64).nullable().optional(), aci: z.string().max(64).optional() }));

export const SendResultSchema = z.looseObject({ timestamp: z.number().int() });

export const AttachmentSchema = z.looseObject({
  contentType: z.string().max(256).optional(),
  filename: z.string().max(1024).nullable().optional(),
  id: z.string().min(1).max(256),
  size: z.number().int().nonnegative().optional(),
});

export const EnvelopeSchema = z.looseObject({
  source: z.string().max(256).optional(),
  sourceNumber: z.string().max(64).nullable().optional(),
  sourceUuid: z.string().max(64).optional(),
  sourceName: z.string().max(256).nullable().optional(),
  timestamp: z.number().int().nonnegative(),
  dataMessage: z
    .looseObject({
      timestamp: z.number().int().nonnegative(),
      message: z.string().nullable().optional(),
      attachments: z.array(AttachmentSchema).optional(),
      mentions: z.array(z.looseObject({ number: z.string().nullable().optional(), uuid: z.string().optional() })).optional(),
      quote: z.looseObject({ id: z.number(), author: z.string().optional(), authorNumber: z.string().nullable().optional() }).optional(),
      groupInfo: z.looseObject({ groupId: z.string().min(1).max(256), type: z.string().optional() }).optional(),
    })
    .optional(),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** The data of one `receive` event on /api/v1/events. */
export const ReceiveSchema = z.looseObject({ envelope: EnvelopeSchema, account: z.string().optional() });

export const GetAttachmentSchema = z.union([z.string(), z.looseObject({ data: z.string() })]);
