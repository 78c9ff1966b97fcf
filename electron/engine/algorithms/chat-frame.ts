/**
 * An imported chat model's own turn framing (algorithms.md "Episode format": imported chat models use
 * their own template). The episode layout keeps one segment per block; what opens and closes each
 * block comes from the model's chat template instead of our `<|role|>` markers, found by rendering
 * the template around sentinel contents: for SmolLM2 (ChatML) the act block opens with
 * `<|im_start|>assistant\n` and closes with `<|im_end|>\n`, and generation stops at `<|im_end|>`.
 *
 * A template whose blocks this cannot take apart the same way — a close that does not start with
 * one shared stop token (Qwen2.5 wraps tool results in `<tool_response>` tags before it), or a
 * template that refuses the conversation — gets no frame: the run keeps our markers, as before.
 */
import { ENVACE_CHAT_TEMPLATE, type ChatMessage, type TextTokenizer } from '../../../native-models/tokenizer';
import type { ToolSpec } from '../envs/types';
import { type ChatFrame, systemText } from './layout';

const SENTINEL = '\u0001envace\u0001';

/** Tools as transformers hands them to chat templates. */
const asTemplateTools = (tools: readonly ToolSpec[]) =>
  tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

/**
 * The tool block for a template that does not render tools itself (SmolLM2's): the function-calling
 * prompt of the Hermes format, whose `<tool_call>{"name": …, "arguments": …}</tool_call>` is the
 * action syntax our environments parse.
 */
export function hermesToolText(description: string, tools: readonly ToolSpec[], mode: 'full' | 'compact' = 'full'): string {
  // compact: one `name(arg, optional?)` line per tool inside the same tags (a tau2 retail prompt is
  // 3,350 tokens with full schemas, 330 with these lines).
  const lines = mode === 'full' ? asTemplateTools(tools).map((t) => JSON.stringify(t)) : systemText('', tools, 'compact').split('\n').slice(1);
  return [
    description,
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    ...lines,
    '</tools>',
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
    'When no function fits or the task is done, answer in plain text within <answer></answer> tags.',
  ].join('\n');
}

type Render = (messages: ChatMessage[], opts?: { tools?: unknown[]; addGenerationPrompt?: boolean }) => string;

/** `whole` with `prefix` cut off, or null when it does not start with it. */
const after = (whole: string, prefix: string) => (whole.startsWith(prefix) ? whole.slice(prefix.length) : null);

/** The open and close text of the last message of `messages` (its content the sentinel), after `before`'s render. */
function block(render: Render, before: ChatMessage[], role: string): { open: string; close: string } | null {
  const head = render(before);
  const rest = after(render([...before, { role, content: SENTINEL }]), head);
  const at = rest?.indexOf(SENTINEL) ?? -1;
  if (rest === null || rest === undefined || at < 0) return null;
  return { open: rest.slice(0, at), close: rest.slice(at + SENTINEL.length) };
}

/** A tool that only asks whether a template writes tools at all. */
const PROBE_TOOL: ToolSpec = { name: 'probe', description: SENTINEL, parameters: { type: 'object', properties: {} } };

/** Whether the template writes the tools it is given (Qwen's does; SmolLM2's ignores them): decided once per frame. */
function rendersTools(render: Render): boolean {
  const messages = [{ role: 'system', content: SENTINEL }];
  return render(messages, { tools: asTemplateTools([PROBE_TOOL]) }) !== render(messages);
}

/** The system text as a template that renders tools writes it (one render), or null when it cannot be cut out of the system block. */
function templateToolText(render: Render, system: { open: string; close: string }, description: string, tools: readonly ToolSpec[]): string | null {
  const withTools = render([{ role: 'system', content: SENTINEL }], { tools: asTemplateTools(tools) });
  const inner = after(withTools, system.open);
  if (inner === null || !inner.endsWith(system.close) || !inner.includes(SENTINEL)) return null;
  return inner.slice(0, inner.length - system.close.length).replace(SENTINEL, description);
}

/**
 * The model's frame from its chat template, or undefined: no template, our own template, or one
 * this cannot take apart (then the run keeps our role markers).
 */
export function chatFrame(tok: TextTokenizer): ChatFrame | undefined {
  if (!tok.chatTemplate || tok.chatTemplate === ENVACE_CHAT_TEMPLATE) return undefined;
  const render: Render = (messages, opts = {}) => tok.renderChat(messages, opts);
  try {
    const system = block(render, [], 'system');
    if (!system) return undefined;
    const sys = { role: 'system', content: 'S' };
    const user = block(render, [sys], 'user');
    const act = block(render, [sys, { role: 'user', content: 'U' }], 'assistant');
    const obs = block(render, [sys, { role: 'user', content: 'U' }, { role: 'assistant', content: 'A' }], 'tool');
    if (!user || !act || !obs) return undefined;
    // Every block must close alike, and generation must be able to stop on the close's first token.
    if (![user, act, obs].every((b) => b.close === system.close)) return undefined;
    const ids = (text: string) => tok.encode(text, { parseSpecial: true });
    const close = ids(system.close);
    // Generation stops on the close's first token, so it must be a special token (`<|im_end|>`), never plain text.
    const stop = /^<[^<>\s]+>/.exec(system.close)?.[0];
    if (stop === undefined || tok.tokenToId(stop) !== close[0]) return undefined;
    const generation = after(render([sys, { role: 'user', content: 'U' }], { addGenerationPrompt: true }), render([sys, { role: 'user', content: 'U' }]));
    if (generation !== null && generation !== act.open) return undefined;
    const ownTools = rendersTools(render);
    return {
      open: { system: ids(system.open), user: ids(user.open), act: ids(act.open), obs: ids(obs.open) },
      close,
      systemText: (description, tools, mode) => {
        if (mode === 'none') return description;
        // Compact lines are ours whatever the template; full schemas go as the template writes tools, where it does.
        return (mode === 'full' && ownTools ? templateToolText(render, system, description, tools) : null) ?? hermesToolText(description, tools, mode);
      },
    };
  } catch {
    return undefined;
  }
}

