import { z } from 'zod';
import { Id, Text, Timestamp } from './common';

/** A tool call as it appears in a plan. */
export const PlannedCall = z.strictObject({
  name: z.string().min(1).max(200),
  arguments: z.record(z.string().max(200), z.json()),
});

/** One private rehearsal, summarised (algorithms.md "Test-time private rehearsal"). */
export const RehearsalSummary = z.strictObject({
  plan: z.array(PlannedCall).max(64),
  predictedObservations: z.array(z.string().max(16_384)).max(64),
  answer: z.string().max(16_384).nullable(),
  /** Mean token log-prob of the rehearsal's generated tokens. */
  confidence: z.number().max(0),
  problems: z.array(z.string().max(2000)).max(64),
});

/** The structured rehearsal memory: stored as JSON, rendered as text for the <|memory|> block. */
export const RehearsalMemory = z.strictObject({
  rehearsals: z.array(RehearsalSummary).max(64),
  consensus: z.strictObject({
    plan: z.array(PlannedCall).max(64),
    answer: z.string().max(16_384).nullable(),
  }),
  notes: z.string().max(16_384).default(''),
});
export type RehearsalMemory = z.infer<typeof RehearsalMemory>;

export const MemoryId = z.number().int().positive();

export const Memory = z.strictObject({
  id: MemoryId,
  env: z.string(),
  taskId: z.string(),
  runId: Id.nullable(),
  /** The memory this one was edited from; null for one built from rehearsals. */
  parentId: MemoryId.nullable(),
  version: z.number().int().positive(),
  structured: RehearsalMemory,
  text: z.string(),
  source: z.enum(['rehearsal', 'edit']),
  createdAt: Timestamp,
});
export type Memory = z.infer<typeof Memory>;

export const MemoriesListInput = z.strictObject({
  env: z.string().max(128).optional(),
  taskId: z.string().max(200).optional(),
  runId: Id.optional(),
  limit: z.number().int().min(1).max(500).default(100),
});
export const MemoriesListOutput = z.strictObject({ items: z.array(Memory) });
export const MemoryGetInput = z.strictObject({ id: MemoryId });
/** An edit never overwrites: it creates a new version whose parent is the edited one. */
export const MemoryUpdateInput = z.strictObject({
  id: MemoryId,
  structured: RehearsalMemory.optional(),
  text: Text.optional(),
});

export const RehearsalMode = z.enum(['parallel', 'sequential']);

export const MemoriesRehearseInput = z.strictObject({
  /** The trained policy: a run and one of its checkpoints (default the last). */
  runId: Id,
  step: z.number().int().nonnegative().optional(),
  taskId: z.string().min(1).max(200),
  rehearsals: z.number().int().min(1).max(16).default(4),
  mode: RehearsalMode.default('parallel'),
  temperature: z.number().min(0).max(5).default(1),
});

export const MemoriesRehearseOutput = z.strictObject({
  memory: Memory,
  /** The stored private rehearsals (mode "test-time", zero env calls). */
  rehearsalIds: z.array(z.number().int()),
});

/**
 * prompt: the memory in a <|memory|> block; plan: follow the consensus plan while reality agrees;
 * safe: the memory never enters the prompt, it only vetoes a call the rehearsals predicted to fail.
 */
export const CommitMode = z.enum(['prompt', 'plan', 'safe']);
export type CommitMode = z.infer<typeof CommitMode>;

export const MemoriesCommitInput = z.strictObject({
  memoryId: MemoryId,
  runId: Id,
  step: z.number().int().nonnegative().optional(),
  /**
   * prompt: the memory goes in a <|memory|> block; plan: follow the consensus plan until reality
   * diverges. Absent: chosen to fit, as memories.fit says.
   */
  commit: CommitMode.optional(),
});

export const MemoriesFitInput = z.strictObject({ memoryId: MemoryId, runId: Id, step: z.number().int().nonnegative().optional() });
/** Before a commit: the memory's tokens against the room the run's prompt of the task leaves, and the mode chosen to fit. */
export const MemoriesFitOutput = z.strictObject({
  total: z.number().int().nonnegative(),
  room: z.number().int().nonnegative(),
  /** The prompt would hold only the memory's last `room` tokens. */
  cut: z.boolean(),
  commit: CommitMode,
  /** Which mode and why, in a sentence ("memory 513 tokens, room 64: the memory will be cut…"). */
  reason: z.string(),
});

export const MemoriesCommitOutput = z.strictObject({
  rolloutId: z.number().int(),
  memoryId: MemoryId,
  reward: z.number(),
  success: z.boolean(),
  envCalls: z.number().int(),
  /** The mode the run was committed in (the one asked for, or the one chosen to fit). */
  commit: CommitMode,
  /** plan mode: the turn where a real observation disagreed and the policy took over; null if it never did. */
  fellBackAtTurn: z.number().int().nullable(),
  /** The memory's tokens and how many the prompt kept: a memory longer than the context leaves room for is cut, its end kept. */
  memoryTokens: z.strictObject({ total: z.number().int().nonnegative(), kept: z.number().int().nonnegative() }),
});
