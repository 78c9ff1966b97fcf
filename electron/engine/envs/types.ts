/**
 * The tool-use environment interface (see shared/design/environments.md).
 *
 * An environment is a partially observed world reached through tools. Every built-in
 * environment, the MCP adapter and the pretrained-track benchmarks implement `ToolEnv`;
 * algorithms talk to worlds only through it.
 */

export type Split = 'train' | 'heldout' | 'ood';
export const SPLITS: readonly Split[] = ['train', 'heldout', 'ood'];

/** A tool in OpenAI function form; `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export type JsonSchema = { [key: string]: unknown };
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One tool call as the agent wrote it. */
export interface ToolCall {
  name: string;
  arguments: { [key: string]: JsonValue };
}

/**
 * What the parser makes of one act turn. It never throws: text that is not a valid
 * action becomes `{ kind: 'invalid' }` with an error worded like a real server's.
 */
export type Action =
  | { kind: 'calls'; calls: ToolCall[] }
  | { kind: 'answer'; text: string }
  | { kind: 'invalid'; error: string; raw: string };

/** Checklist items (algorithms.md "Rewards that need no environment"). */
export type ChecklistItem =
  | {
      kind: 'call';
      weight: number;
      name: string;
      /** Arguments that must match (normalised); other arguments are free. */
      args?: { [key: string]: JsonValue };
      description?: string;
    }
  | { kind: 'no-call'; weight: number; name: string; args?: { [key: string]: JsonValue }; description?: string }
  | {
      kind: 'answer';
      weight: number;
      /** Accepted answers; any match passes. */
      expected: JsonValue[];
      match?: 'normalised' | 'numeric' | 'set' | 'exact';
      tolerance?: number;
      description?: string;
    }
  | { kind: 'communicate'; weight: number; text: string; description?: string }
  /**
   * A requirement stated in words (tau2's NL assertions) that only an LLM judge could check, which we
   * do not run: listed so the reader sees it, never passed, and kept out of the score whatever its weight.
   */
  | { kind: 'nl-assertion'; weight: number; text: string; description?: string };

export interface ChecklistItemResult {
  index: number;
  kind: ChecklistItem['kind'];
  description: string;
  weight: number;
  passed: boolean;
  detail?: string;
  /** An item nothing here can check (an NL assertion): not passed, not in the score. */
  unchecked?: true;
}

export interface ChecklistResult {
  /** Σ weights passed / Σ weights of the checkable items, in [0, 1]; 0 on any tool-format error, and 0 when none is checkable. */
  score: number;
  items: ChecklistItemResult[];
  formatError: boolean;
  /** No checkable item carries weight (every requirement needs a judge): the score says nothing, and the episode is no success. */
  unchecked?: true;
}

/** What an episode did, in the form the checklist scores (real and rehearsed alike). */
export interface EpisodeTranscript {
  calls: ToolCall[];
  /** The act each call was made in, parallel to `calls` (the checklist's call budget is per act); absent: one act per call. */
  callActs?: number[];
  /** Final answer text, if the agent answered. */
  answer: string | null;
  /** Every text the agent sent (answers and any message-like content) for COMMUNICATE checks. */
  messages: string[];
  formatErrors: number;
}

export interface Task {
  id: string;
  env: string;
  split: Split;
  instruction: string;
  /** Gold reference: the calls an expert makes and/or the final answer. */
  gold: { calls: ToolCall[]; answer: string | null };
  checklist: ChecklistItem[];
  maxTurns: number;
  /** Tools offered for this task only (BFCL: each item brings its own functions); when absent, `env.tools()`. */
  tools?: ToolSpec[];
  /** Text the system block carries for this task after the env's description (a varied layout's note); absent: none. */
  systemNote?: string;
  /** Env-specific data the episode needs (seeded world parameters, expected end state…). */
  meta?: { [key: string]: JsonValue };
}

export interface TaskRef {
  id: string;
  split: Split;
  instruction: string;
}

/** End-state checks for real episodes (DB hash after replaying gold actions, env assertions). */
export interface EnvCheck {
  passed: boolean;
  checks: Array<{ name: string; passed: boolean; detail?: string; skipped?: boolean }>;
}

export interface StepResult {
  observation: string;
  done: boolean;
}

export interface EpisodeCost {
  envCalls: number;
  envWallMs: number;
}

export interface Episode {
  readonly task: Task;
  readonly initialObservation: string;
  step(action: Action): Promise<StepResult>;
  finalCheck(): Promise<EnvCheck>;
  /** Env calls and wall time spent inside the environment so far. */
  cost(): EpisodeCost;
  /**
   * Calls the environment rejected, where it can tell a rejection from an ordinary answer (an MCP
   * server's isError). A gold replay with any is not a success: the gold does not fit the server.
   */
  rejectedCalls?(): string[];
  /**
   * Failures of the environment itself, not of the agent (its server did not start, crashed or hung),
   * in order; where it can tell. Training counts and names such episodes (`env_failures`) and drops a
   * demonstration recorded through one.
   */
  readonly failures?: readonly string[];
  close(): Promise<void>;
}

export interface ToolEnv {
  readonly id: string;
  readonly description: string;
  /** 'scratch' = from-scratch track, 'pretrained' = for imported chat models, 'mcp' = user server. */
  readonly track: 'scratch' | 'pretrained' | 'mcp';
  tools(): ToolSpec[];
  tasks(split: Split): TaskRef[];
  task(id: string): Task;
  reset(task: Task, seed: number): Promise<Episode>;
  /** A scripted expert: the actions it takes given the episode so far (for demos and the oracle policy). */
  expert?(task: Task): ExpertPolicy;
  /** How episodes are kept apart, in words, where a server's state could leak between them (MCP-backed envs). */
  readonly resetDescription?: string;
  close?(): Promise<void>;
}

/** A scripted policy: sees observations, returns the next action. */
export interface ExpertPolicy {
  next(lastObservation: string): Action;
}
