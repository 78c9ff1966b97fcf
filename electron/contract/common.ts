import { z } from 'zod';

/**
 * Shared building blocks. Every string has a length cap and every object is strict
 * (unknown keys rejected), so a payload can never smuggle in more than the contract says.
 */
export const MAX_TEXT = 256 * 1024;
export const Id = z.string().min(1).max(128).regex(/^[A-Za-z0-9._:@/-]+$/, 'ids use letters, digits and . _ : @ / -');
export const Name = z.string().min(1).max(200);
export const Text = z.string().max(MAX_TEXT);
export const Timestamp = z.number().int().nonnegative().describe('milliseconds since the epoch');
export const Step = z.number().int().nonnegative();
export const Json = z.json();

export const Page = z.strictObject({
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
});

export const Empty = z.strictObject({});
export const Ok = z.strictObject({ ok: z.literal(true) });

/** Every seed a user can give (a run's, an evaluation's): the 31-bit range the engine's generators take, one limit everywhere. */
export const SEED_MAX = 2 ** 31 - 1;
export const Seed = z.number().int().min(0).max(SEED_MAX);
