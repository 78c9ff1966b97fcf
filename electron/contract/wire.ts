import { z } from 'zod';
import { ContractErrorShape } from './errors';

/** Frames on the WebSocket transport (web mode). The IPC transport carries the same shapes. */
export const RequestFrame = z.strictObject({
  type: z.literal('request'),
  id: z.number().int().nonnegative(),
  method: z.string().max(100),
  input: z.unknown().optional(),
});
export type RequestFrame = z.infer<typeof RequestFrame>;

export const ResultShape = z.union([
  z.strictObject({ ok: z.literal(true), value: z.unknown() }),
  z.strictObject({ ok: z.literal(false), error: ContractErrorShape }),
]);

export const ResponseFrame = z.strictObject({
  type: z.literal('response'),
  id: z.number().int().nonnegative().nullable(),
  result: ResultShape,
});
export type ResponseFrame = z.infer<typeof ResponseFrame>;

export const EventFrame = z.strictObject({ type: z.literal('event'), event: z.string(), payload: z.unknown() });
export type EventFrame = z.infer<typeof EventFrame>;

export const ServerFrame = z.union([ResponseFrame, EventFrame]);
export type ServerFrame = z.infer<typeof ServerFrame>;

/** Largest frame either side accepts (a rollout with token arrays fits comfortably). */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** Electron IPC channel names (preload and main must agree). */
export const IPC_INVOKE_CHANNEL = 'workbench:invoke';
export const IPC_EVENT_CHANNEL = 'workbench:event';
