// Chat templates: the Jinja template a model ships in tokenizer_config.json (or chat_template.jinja),
// rendered with @huggingface/jinja; and our own template for from-scratch models, which lays an episode
// out as `<|role|>content<|end|>` blocks (algorithms.md, "Episode format").

import { Template } from '@huggingface/jinja';
import { TokenizerError } from './tokenizer-files';

export interface ChatMessage {
  /** system, user, assistant (= act), tool (= obs), memory, rehearse; imported templates may know others. */
  role: string;
  content?: string | null;
  /** Hugging Face style tool calls on an assistant message. */
  tool_calls?: { type?: string; function: { name: string; arguments: unknown } }[];
  [key: string]: unknown;
}

export interface ChatRenderOptions {
  addGenerationPrompt?: boolean;
  /** JSON Schemas of the tools, as transformers passes them to templates. */
  tools?: unknown[];
  /** More template variables (e.g. Qwen3's enable_thinking). */
  extra?: Record<string, unknown>;
}

/**
 * Our template. Tool schemas, if given, go one JSON object per line at the end of the system block (a
 * system block is opened for them when the conversation has none). Tool calls on assistant messages are
 * written as `<tool_call>{"name":…,"arguments":…}</tool_call>`, the action syntax the environments parse.
 */
export const ENVACE_CHAT_TEMPLATE = [
  "{%- set markers = {'system': '<|system|>', 'user': '<|user|>', 'assistant': '<|act|>', 'act': '<|act|>', 'tool': '<|obs|>', 'obs': '<|obs|>', 'memory': '<|memory|>', 'rehearse': '<|rehearse|>'} -%}",
  "{%- macro render_tools(after_text) -%}{%- for t in tools -%}{%- if after_text or not loop.first -%}{{ '\\n' }}{%- endif -%}{{ t | tojson }}{%- endfor -%}{%- endmacro -%}",
  "{%- if tools and (messages | length == 0 or messages[0].role != 'system') -%}<|system|>{{ render_tools(false) }}<|end|>{%- endif -%}",
  '{%- for m in messages -%}',
  "{%- if m.role not in markers -%}{{ raise_exception('unknown chat role: ' ~ m.role) }}{%- endif -%}",
  '{{ markers[m.role] }}{%- if m.content -%}{{ m.content }}{%- endif -%}',
  "{%- if m.role == 'system' and loop.first and tools -%}{{ render_tools(m.content) }}{%- endif -%}",
  "{%- if m.tool_calls -%}{%- for c in m.tool_calls -%}<tool_call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</tool_call>{%- endfor -%}{%- endif -%}",
  '<|end|>',
  '{%- endfor -%}',
  '{%- if add_generation_prompt -%}<|act|>{%- endif -%}',
].join('');

const compiled = new Map<string, Template>();

function compile(source: string): Template {
  let t = compiled.get(source);
  if (!t) {
    try {
      t = new Template(source);
    } catch (e) {
      throw new TokenizerError('BAD_TEMPLATE', `chat template does not parse (${(e as Error).message})`);
    }
    if (compiled.size > 32) compiled.clear();
    compiled.set(source, t);
  }
  return t;
}

/** Render `messages` through a Jinja chat template; template errors become TokenizerError('BAD_TEMPLATE'). */
export function renderChatTemplate(
  source: string,
  messages: readonly ChatMessage[],
  opts: ChatRenderOptions & { specialTokens?: Record<string, string | null | undefined> } = {},
): string {
  const template = compile(source);
  try {
    return template.render({
      ...opts.specialTokens,
      ...opts.extra,
      messages,
      add_generation_prompt: opts.addGenerationPrompt ?? false,
      ...(opts.tools ? { tools: opts.tools } : {}),
    });
  } catch (e) {
    throw new TokenizerError('BAD_TEMPLATE', `chat template failed to render (${(e as Error).message})`);
  }
}
