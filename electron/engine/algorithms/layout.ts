/**
 * The episode's token layout (algorithms.md "Episode format"): a prompt block, then alternating
 * `<|act|>…<|end|>` and `<|obs|>…<|end|>` segments. Each segment knows its role and which of its ids
 * the policy generated (`lead` marker ids before, `tail` forced ids after), so the train masks,
 * advantages and stored turns all come from one description of the stream.
 */
import type { TurnRole } from '../../contract';
import type { NewTurn } from '../store/rollouts';
import type { ToolSpec } from '../envs/types';
import { AlgorithmError } from './errors';

export const SPECIAL = {
  system: '<|system|>',
  user: '<|user|>',
  act: '<|act|>',
  obs: '<|obs|>',
  memory: '<|memory|>',
  end: '<|end|>',
  rehearse: '<|rehearse|>',
} as const;

/** The few tokenizer operations the algorithms need. */
export interface PolicyTokenizer {
  readonly vocabSize: number;
  encode(text: string, opts?: { parseSpecial?: boolean }): number[];
  decode(ids: readonly number[]): string;
  tokenToId(token: string): number | undefined;
}

export interface SpecialIds {
  system: number;
  user: number;
  act: number;
  obs: number;
  memory: number;
  end: number;
  /** Opens the simulator's answer when rehearsal uses the `simulator` prompt. */
  rehearse: number;
  /**
   * An imported chat model's own framing (chat-frame.ts): each block opens and closes with its
   * template's ids instead of the marker and `<|end|>`, and `end` is the template's stop token.
   * The markers above stay the keys that name the blocks. Absent: our markers frame every block.
   */
  frame?: ChatFrame;
}

export function specialIds(tok: PolicyTokenizer, frame?: ChatFrame): SpecialIds {
  const out = {} as Record<keyof typeof SPECIAL, number>;
  for (const [k, t] of Object.entries(SPECIAL)) {
    const id = tok.tokenToId(t);
    if (id === undefined) throw new AlgorithmError(`the tokenizer lacks the special token ${t}`);
    out[k as keyof typeof SPECIAL] = id;
  }
  return frame ? { ...out, end: frame.close[0], frame } : out;
}

/** The ids that open the block `marker` names: the marker itself, or the model's own opening. */
export function openIds(sp: SpecialIds, marker: number): number[] {
  const f = sp.frame;
  if (!f) return [marker];
  if (marker === sp.system) return f.open.system;
  if (marker === sp.user || marker === sp.memory) return f.open.user;
  if (marker === sp.obs) return f.open.obs;
  return f.open.act;
}

/** The ids that close every block: `<|end|>`, or the model's own close (its stop token first). */
export const closeIds = (sp: SpecialIds): number[] => sp.frame?.close ?? [sp.end];

/** A block of given text: its opening, `body`, its close. */
export function framed(sp: SpecialIds, role: TurnRole, marker: number, text: string, body: readonly number[]): Segment {
  const open = openIds(sp, marker);
  const close = closeIds(sp);
  return { role, text, ids: [...open, ...body, ...close], lead: open.length, tail: close.length, logprobs: [] };
}

/** The system block's text; an imported chat model writes its tools as its own template does. */
export function systemTextFor(sp: SpecialIds, description: string, tools: readonly ToolSpec[], mode: ToolSchemaMode): string {
  return sp.frame ? sp.frame.systemText(description, tools, mode) : systemText(description, tools, mode);
}

export interface Segment {
  role: TurnRole;
  text: string;
  ids: number[];
  /** Marker ids at the start that the policy did not generate (e.g. `<|act|>`). */
  lead: number;
  /** Ids at the end the policy did not generate (a forced `<|end|>` after a length cut). */
  tail: number;
  /** Log-probs of the generated ids (ids.length − lead − tail of them); empty for given text. */
  logprobs: number[];
  /** Advantage of this output, once computed. */
  advantage?: number;
  /** Given text that no loss trains (an error probe's wrong call: shown, never imitated). */
  untrained?: boolean;
}

export type ToolSchemaMode = 'full' | 'compact' | 'none';

/** The framing of each of our blocks, as token ids. */
export interface ChatFrame {
  /** Opening ids per block (memory is a user turn, a simulator answer an assistant turn). */
  open: { system: number[]; user: number[]; act: number[]; obs: number[] };
  /** Closing ids of every block; the first is the stop token generation ends at. */
  close: number[];
  /** The system block's text: the env's description with its tools as the template writes them. */
  systemText: (description: string, tools: readonly ToolSpec[], mode: ToolSchemaMode) => string;
}

/** The env's description with the task's own system note after it (a varied layout's), when it has one. */
export function taskDescription(description: string, task?: { systemNote?: string }): string {
  return task?.systemNote ? `${description}\n${task.systemNote}` : description;
}

/** The system block's text: the env's description and its tools in the chosen form. */
export function systemText(description: string, tools: readonly ToolSpec[], mode: ToolSchemaMode): string {
  if (mode === 'none') return description;
  if (mode === 'full') return `${description}\n${tools.map((t) => JSON.stringify(t)).join('\n')}`;
  const line = (t: ToolSpec) => {
    const props = (t.parameters.properties ?? {}) as Record<string, unknown>;
    const required = new Set((t.parameters.required as string[] | undefined) ?? []);
    return `${t.name}(${Object.keys(props)
      .map((p) => (required.has(p) ? p : `${p}?`))
      .join(', ')})`;
  };
  return `${description}\n${tools.map(line).join('\n')}`;
}

/** `<|marker|>` + text + `<|end|>` as given (non-generated) text. Model-facing text never parses specials. */
export function givenSegment(
  tok: PolicyTokenizer,
  sp: SpecialIds,
  role: TurnRole,
  marker: number,
  text: string,
  maxTokens = Infinity,
  keep: 'head' | 'tail' = 'head',
): Segment {
  const all = tok.encode(text, { parseSpecial: false });
  const cut = all.length > maxTokens;
  const body = !cut ? all : keep === 'head' ? all.slice(0, maxTokens) : all.slice(all.length - maxTokens);
  return framed(sp, role, marker, cut ? tok.decode(body) : text, body);
}

export interface PromptParts {
  system: string;
  instruction: string;
  memory?: string;
  /** The env's first observation, when it has one (household describes the room). */
  initialObservation?: string;
  /** Extra ids rendered into the prompt (the robustness evaluation's perturbations); absent: none. */
  insertion?: PromptInsertion;
}

/**
 * Ids placed into the prompt as given text: at the end of the system block, at the end of the user
 * block (after the instruction), or in the `<|memory|>` block (after any memory text; the block is
 * opened for them when there is no memory). Ids, not text, so the count is exact whatever the tokenizer.
 */
export interface PromptInsertion {
  where: 'system' | 'instruction' | 'memory';
  ids: readonly number[];
}

/** `s` with `ids` placed before its closing `<|end|>`. */
function extended(tok: PolicyTokenizer, s: Segment, ids: readonly number[]): Segment {
  const at = s.ids.length - s.tail;
  return { ...s, text: s.text + tok.decode(ids), ids: [...s.ids.slice(0, at), ...ids, ...s.ids.slice(at)] };
}

/**
 * The prompt block: system, user, optional memory, optional initial observation. The memory gets the
 * context left after the rest of the prompt and `reserve` tokens (room for at least one turn), and
 * never less than `memoryTokens` while the context holds them: that room is reserved for it.
 */
export function promptSegments(
  tok: PolicyTokenizer,
  sp: SpecialIds,
  p: PromptParts,
  maxObservationTokens: number,
  limits?: { maxSeqLen: number; reserve: number; memoryTokens?: number },
): Segment[] {
  const ins = p.insertion?.ids.length ? p.insertion : undefined;
  const system = givenSegment(tok, sp, 'prompt', sp.system, p.system);
  const user = givenSegment(tok, sp, 'prompt', sp.user, p.instruction);
  const out = [ins?.where === 'system' ? extended(tok, system, ins.ids) : system, ins?.where === 'instruction' ? extended(tok, user, ins.ids) : user];
  const initial = p.initialObservation ? [givenSegment(tok, sp, 'env', sp.obs, p.initialObservation, maxObservationTokens)] : [];
  if (p.memory !== undefined) {
    const used = [...out, ...initial].reduce((n, s) => n + s.ids.length, 0);
    // A memory ends with its consensus; when it must be cut, its end is what is kept.
    const block = givenSegment(tok, sp, 'memory', sp.memory, p.memory, memoryRoom(used, limits), 'tail');
    out.push(ins?.where === 'memory' ? extended(tok, block, ins.ids) : block);
  } else if (ins?.where === 'memory') {
    out.push(framed(sp, 'memory', sp.memory, tok.decode(ins.ids), ins.ids));
  }
  return [...out, ...initial];
}

/**
 * Tokens a memory block may hold after `used` prompt ids: what the context leaves after `reserve`,
 * and never less than the reserved `memoryTokens` while the context holds them. The 2 are the
 * block's own marker and `<|end|>`.
 */
export function memoryRoom(used: number, limits?: { maxSeqLen: number; reserve: number; memoryTokens?: number }): number {
  if (!limits) return Infinity;
  const left = limits.maxSeqLen - used - 2;
  return Math.max(0, left - limits.reserve, Math.min(limits.memoryTokens ?? 0, left));
}

/** A generated segment: marker, generated ids, and a forced `<|end|>` when generation was cut. */
export function generatedSegment(
  tok: PolicyTokenizer,
  sp: SpecialIds,
  role: 'act' | 'rehearse',
  generated: readonly number[],
  logprobs: readonly number[],
  marker = role === 'act' ? sp.act : sp.obs,
): Segment {
  const ended = generated[generated.length - 1] === sp.end;
  const body = ended ? generated.slice(0, -1) : [...generated];
  const open = openIds(sp, marker);
  // The stop token, when generated, is the policy's; the rest of the close (or all of it, after a cut) is forced.
  const forced = ended ? closeIds(sp).slice(1) : closeIds(sp);
  return {
    role,
    text: tok.decode(body),
    ids: [...open, ...generated, ...forced],
    lead: open.length,
    tail: forced.length,
    logprobs: [...logprobs],
  };
}

export const flatten = (segments: readonly Segment[]) => segments.flatMap((s) => s.ids);

/** Per-token values over the whole stream: `f(segment)` on generated positions, 0 elsewhere. */
export function perToken(segments: readonly Segment[], f: (s: Segment, k: number) => number): number[] {
  const out: number[] = [];
  for (const s of segments) {
    const gen = s.ids.length - s.lead - s.tail;
    for (let i = 0; i < s.ids.length; i++) {
      const k = i - s.lead;
      out.push(k >= 0 && k < gen && s.logprobs.length ? f(s, k) : 0);
    }
  }
  return out;
}

/** Per-token values over the ids of given segments of `roles` (their content and closing `<|end|>`). */
export function givenMask(segments: readonly Segment[], roles: readonly TurnRole[]): number[] {
  return segments.flatMap((s) => s.ids.map((_, i) => (roles.includes(s.role) && s.logprobs.length === 0 && !s.untrained && i >= s.lead ? 1 : 0)));
}

/** Stored turns: ids with log-probs and advantages aligned to them (0 on non-generated ids). */
export function toTurns(segments: readonly Segment[]): NewTurn[] {
  return segments.map((s) => {
    const lp = s.ids.map((_, i) => (i >= s.lead && i - s.lead < s.logprobs.length ? s.logprobs[i - s.lead] : 0));
    return {
      role: s.role,
      text: s.text,
      tokenIds: s.ids,
      logprobs: s.logprobs.length ? lp : null,
      advantages:
        s.advantage === undefined || !s.logprobs.length ? null : lp.map((_, i) => (i >= s.lead && i - s.lead < s.logprobs.length ? s.advantage! : 0)),
    };
  });
}
