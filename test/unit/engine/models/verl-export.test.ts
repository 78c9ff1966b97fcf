// The verl export: one folder made from a nano checkpoint and a small retail world (golden: file list and
// key fields of each file), its configs against the keys verl's own yaml has at the pinned commit
// (test/fixtures/verl/config-keys.json), its parquet read back by a parquet reader, and its reward
// function run by a bare python3 (no verl) on `finish` results recorded from `envace mcp serve`'s book.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunConfig } from '../../../../electron/contract';
import { systemText } from '../../../../electron/engine/algorithms/layout';
import { RetailEnv } from '../../../../electron/engine/envs/retail/env';
import { EpisodeBook } from '../../../../electron/engine/mcp-serve/episodes';
import { ExportError, exportModel } from '../../../../electron/engine/models/export';
import { VERL_COMMIT, VERL_FILES, type VerlRun, verlToolProblems } from '../../../../electron/engine/models/verl/export';
import { grpoTrainerConfig } from '../../../../electron/engine/models/verl/trainer-config';
import { flattenKeys, type YamlValue } from '../../../../electron/engine/models/verl/yaml';
import { openDatabase, Store } from '../../../../electron/engine/store';
import { migrations } from '../../../../electron/engine/store/migrations';
import { nanoConfig, randomWeights, smallTokenizer, tempDirs } from './fixtures';
import { patience } from '../../../helpers/patience';

const PYTHON = '/usr/bin/python3';
const KEYS = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/verl/config-keys.json'), 'utf8')) as {
  verl_commit: string;
  hydra_directives: string[];
  trainer_keys: string[];
  tool_config_keys: string[];
  agent_loop_config_keys: string[];
  mcp_servers_root: string;
  dataset_columns: string[];
};

const tmp = tempDirs();
afterAll(tmp.cleanup);

/** YAML as a real parser reads it (PyYAML), so a file our emitter got wrong fails here. */
function readYaml(file: string): YamlValue {
  return JSON.parse(execFileSync(PYTHON, ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file], { encoding: 'utf8' }));
}

function python(dir: string, code: string): string {
  return execFileSync(PYTHON, ['-c', code], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', PYTHONPATH: dir, PYTHONDONTWRITEBYTECODE: '1' } }).trim();
}

let env: RetailEnv;
let verl: VerlRun;
let out: string;
let files: string[];
const config = RunConfig.parse({ env: 'retail', algo: 'envace', seed: 7, steps: 30, rollout: { k: 6, tasksPerStep: 3, maxTurns: 5 }, loss: { klBeta: 0.02 }, evalEvery: 10 });

beforeAll(async () => {
  env = new RetailEnv({ counts: { train: 5, heldout: 3, ood: 0 } });
  verl = {
    run: { id: 'run-v1', name: 'retail-envace', algo: 'envace', step: 20, config },
    env: { id: env.id, description: env.description, tools: env.tools() },
    tasks: { train: env.tasks('train'), heldout: env.tasks('heldout') },
    home: '/home/me/.envace',
    envOptions: { worldSize: 8, seed: 7 },
  };
  // nano with a context long enough for retail's prompt (a run on nano's 256 would have been refused too).
  const model = nanoConfig({ maxSeqLen: 1024 });
  out = join(tmp.make('envace-verl-'), 'retail-verl');
  const res = await exportModel({ config: model, weights: randomWeights(model, 3), tokenizer: smallTokenizer(), format: 'verl', outDir: out, verl, card: { run: 'retail-envace', method: 'envace', metrics: {} } });
  files = res.files.map((f) => f.name);
}, patience(120_000));

describe('verl export: one folder (golden)', () => {
  it('writes the data, configs, reward function, README and the HF weights in model/', () => {
    expect(files).toEqual([
      'README.md',
      'agent_loops.yaml',
      'data/train.parquet',
      'data/validation.parquet',
      'envace_grpo.yaml',
      'envace_verl.py',
      'mcp_servers.json',
      'model/README.md',
      'model/config.json',
      'model/generation_config.json',
      'model/model.safetensors',
      'model/tokenizer.json',
      'model/tokenizer_config.json',
      'tool_config.yaml',
    ]);
    expect(JSON.parse(readFileSync(join(out, 'model/config.json'), 'utf8'))).toMatchObject({ num_hidden_layers: 2, hidden_size: 64 });
  });

  it('the parquet files hold one row per task in verl’s RL dataset schema', async () => {
    const read = async (name: string) => parquetReadObjects({ file: new Uint8Array(readFileSync(join(out, name))).buffer });
    const train = await read(VERL_FILES.train);
    const validation = await read(VERL_FILES.validation);
    expect(train.map((r) => r.extra_info.task_id)).toEqual(env.tasks('train').map((t) => t.id));
    expect(validation.map((r) => r.reward_model.ground_truth)).toEqual(env.tasks('heldout').map((t) => t.id));
    const [row] = train;
    const task = env.tasks('train')[0];
    expect(row).toEqual({
      data_source: 'envace/retail',
      agent_name: 'envace_tool_agent',
      prompt: [
        { role: 'system', content: systemText(env.description, env.tools(), 'compact') },
        { role: 'user', content: task.instruction },
      ],
      ability: 'agent',
      reward_model: { style: 'envace-finish', ground_truth: task.id },
      extra_info: { split: 'train', index: 0n, env: 'retail', task_id: task.id, seed: 7n },
    });
    for (const column of KEYS.dataset_columns) {
      const [head, sub] = column.split('.');
      expect(row, column).toHaveProperty(sub ? [head, sub] : [head]);
    }
  });

  it('the trainer config mirrors the run’s knobs and points at the folder’s files', () => {
    const cfg = readYaml(join(out, VERL_FILES.trainer)) as Record<string, Record<string, unknown>>;
    expect(cfg.defaults).toEqual(['ppo_trainer', '_self_']);
    expect(cfg.algorithm).toEqual({ adv_estimator: 'grpo', norm_adv_by_std_in_grpo: false, use_kl_in_reward: false });
    expect(cfg.data).toMatchObject({ train_files: join(out, 'data/train.parquet'), val_files: join(out, 'data/validation.parquet'), train_batch_size: 3, seed: 7 });
    const aro = cfg.actor_rollout_ref as { [k: string]: Record<string, unknown> };
    expect(aro.model).toEqual({ path: join(out, 'model') });
    expect(aro.actor).toMatchObject({ clip_ratio_low: 0.2, clip_ratio_high: 0.2, clip_ratio_c: 3, loss_agg_mode: 'token-mean', use_kl_loss: true, kl_loss_coef: 0.02, kl_loss_type: 'low_var_kl', data_loader_seed: 7 });
    expect(aro.actor.optim).toMatchObject({ lr: 3e-4, lr_warmup_steps: 5, min_lr_ratio: 0.1, lr_scheduler_type: 'cosine' });
    expect(aro.rollout).toMatchObject({ n: 6, multi_turn: { enable: true, max_assistant_turns: 5, format: 'hermes', tool_config_path: join(out, 'tool_config.yaml') } });
    expect(aro.rollout.agent).toEqual({ default_agent_loop: 'envace_tool_agent', agent_loop_config_path: join(out, 'agent_loops.yaml') });
    expect(cfg.custom_reward_function).toEqual({ path: join(out, 'envace_verl.py'), name: 'compute_score' });
    expect(cfg.trainer).toMatchObject({ total_training_steps: 30, test_freq: 10, experiment_name: 'retail-envace-run-v1' });
    // The lengths fit the model's context (1024): vLLM enforces it, envace rollouts stop there too.
    const data = cfg.data as { max_prompt_length: number; max_response_length: number };
    expect(data.max_prompt_length + data.max_response_length).toBeLessThanOrEqual(1024);
    expect(data.max_response_length).toBeGreaterThan(config.rollout.maxTokensPerTurn);
  });

  it('the tool config loads every tool of envace mcp serve for the env; the agent loop config names ours', () => {
    const tools = readYaml(join(out, VERL_FILES.tools)) as { tools: Array<{ class_name: string; config: object; mcp: { mcp_servers_config_path: string; tool_selected_list: string[] } }> };
    expect(tools.tools).toHaveLength(1);
    expect(tools.tools[0].class_name).toBe('verl.tools.mcp_base_tool.MCPBaseTool');
    expect(tools.tools[0].mcp.mcp_servers_config_path).toBe(join(out, 'mcp_servers.json'));
    expect(tools.tools[0].mcp.tool_selected_list).toEqual(['start_task', 'finish', ...env.tools().map((t) => t.name)]);
    const servers = JSON.parse(readFileSync(join(out, VERL_FILES.servers), 'utf8'));
    expect(servers).toEqual({
      mcpServers: { 'envace-retail': { command: 'envace', args: ['mcp', 'serve', '--env', 'retail', '--split', 'train', '--stdio', '--home', '/home/me/.envace', '--env-option', 'worldSize=8', '--env-option', 'seed=7', '--max-episodes', '10000'] } },
    });
    expect(readYaml(join(out, VERL_FILES.agentLoops))).toEqual([{ name: 'envace_tool_agent', _target_: 'envace_verl.EnvaceToolAgentLoop' }]);
  });

  it('the README gives the launch command and says what maps, what does not and what was verified', () => {
    const readme = readFileSync(join(out, 'README.md'), 'utf8');
    expect(readme).toContain('python3 -m verl.trainer.main_ppo --config-path="$PWD" --config-name=envace_grpo');
    expect(readme).toContain(VERL_COMMIT);
    expect(readme).toMatch(/Rehearse role .* has no counterpart/);
    expect(readme).toContain('| rollout.k (group size) | 6 | actor_rollout_ref.rollout.n |');
    expect(readme).toMatch(/Not verified: a training run in verl/);
    // verl's MCP client is in no PyPI release: the launch section says to install verl from source.
    expect(readme).toContain(`verl installed from source at commit \`${VERL_COMMIT.slice(0, 12)}\``);
    expect(readme).toMatch(/leave out `verl\/tools\/utils\/mcp_clients`/);
  });
});

describe('verl export: configs against verl’s schema at the pinned commit', () => {
  it('the fixture is of the commit the export names', () => {
    expect(KEYS.verl_commit).toBe(VERL_COMMIT);
  });

  it('every key of the trainer config is one verl’s ppo_trainer has (or a Hydra directive)', () => {
    const cfg = readYaml(join(out, VERL_FILES.trainer)) as { [k: string]: YamlValue };
    const keys = flattenKeys(cfg).filter((k) => !KEYS.hydra_directives.includes(k.split('.')[0]));
    expect(keys.length).toBeGreaterThan(40);
    expect(keys.filter((k) => !KEYS.trainer_keys.includes(k))).toEqual([]);
    // Every knob setting writes the same key set, so no other configuration can slip an unchecked key in.
    const other = RunConfig.parse({ env: 'x', loss: { klBeta: 0, aggregation: 'constant', klEstimator: 'k2', stdNormalize: true }, evalEvery: 0 });
    const paths = { dir: '/d', trainFile: 'a', valFile: 'b', modelDir: 'm', toolConfig: 't', agentLoopConfig: 'l', rewardFile: 'r' };
    const alt = grpoTrainerConfig(other, { id: 'r', name: 'n' }, 4, paths, { maxPromptLength: 1, maxResponseLength: 2, firstObservationTokens: 0, maxToolResponseChars: 3 });
    expect(flattenKeys(alt).filter((k) => !KEYS.hydra_directives.includes(k.split('.')[0]))).toEqual(keys);
    const actor = (alt.actor_rollout_ref as { actor: Record<string, unknown> }).actor;
    expect(actor).toMatchObject({ use_kl_loss: false, loss_agg_mode: 'seq-mean-token-sum-norm', kl_loss_type: 'mse' });
    expect(alt.algorithm).toMatchObject({ norm_adv_by_std_in_grpo: true });
  });

  it('the tool config and agent-loop config use only keys verl reads', () => {
    const tools = readYaml(join(out, VERL_FILES.tools)) as { tools: Array<{ [k: string]: YamlValue }> };
    for (const tool of tools.tools) expect(flattenKeys(tool).filter((k) => !KEYS.tool_config_keys.includes(k))).toEqual([]);
    const loops = readYaml(join(out, VERL_FILES.agentLoops)) as Array<{ [k: string]: YamlValue }>;
    for (const loop of loops) expect(Object.keys(loop).sort()).toEqual(KEYS.agent_loop_config_keys);
    expect(Object.keys(JSON.parse(readFileSync(join(out, VERL_FILES.servers), 'utf8')))).toEqual([KEYS.mcp_servers_root]);
  });
});

describe('verl export: the reward function', () => {
  it('imports without verl and scores finish results recorded from envace mcp serve', async () => {
    const book = new EpisodeBook(env, 'train');
    const task = env.task(env.tasks('train')[0].id);
    // A gold episode, as the agent loop drives one: start_task, the env's tools, finish with the answer.
    await book.start('s', { taskId: task.id, seed: 7 });
    for (const call of task.gold.calls) await book.call('s', call.name, call.arguments);
    const gold = await book.finish('s', task.gold.answer ? { answer: task.gold.answer } : {});
    // An episode that never calls a tool and answers nothing.
    await book.start('s', { taskId: task.id, seed: 7 });
    const empty = await book.finish('s');
    expect(gold.reward).toBe(1);
    expect(empty.reward).toBeLessThan(gold.reward);
    const dir = tmp.make('envace-verl-py-');
    writeFileSync(join(dir, 'gold.json'), JSON.stringify(gold));
    writeFileSync(join(dir, 'empty.json'), JSON.stringify(empty));
    const score = (file: string | null, groundTruth: string) =>
      JSON.parse(
        python(
          out,
          [
            'import json, sys, envace_verl as m',
            file === null ? 'info = {}' : `info = {"envace_finish": open(${JSON.stringify(join(dir, file))}).read()}`,
            `print(json.dumps({"verl": m._MISSING is None, **m.compute_score("envace/retail", "", ${JSON.stringify(groundTruth)}, info)}))`,
          ].join('\n'),
        ),
      );
    expect(score('gold.json', task.id)).toEqual({ verl: false, score: 1, success: 1, format_error: 0, finished: 1, task_matches: 1 });
    expect(score('empty.json', task.id)).toEqual({ verl: false, score: empty.reward, success: 0, format_error: 0, finished: 1, task_matches: 1 });
    // A result from another task's episode, or none at all, earns nothing.
    expect(score('gold.json', 'another-task')).toMatchObject({ score: 0, task_matches: 0 });
    expect(score(null, task.id)).toEqual({ verl: false, score: 0, success: 0, format_error: 0, finished: 0, task_matches: 0 });
  });

  it('reads the answer of the last act as the agent loop hands it to finish', () => {
    const answers = python(out, 'import json, envace_verl as m\nprint(json.dumps([m.final_answer(t) for t in ["<answer> delivered </answer>", "plain text", "<tool_call>{}</tool_call>", "  "]]))');
    expect(JSON.parse(answers)).toEqual(['delivered', 'plain text', null, null]);
    const schema = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: {}, episode_id: {} }, required: ['a', 'episode_id'] } } };
    const stripped = python(out, `import json, envace_verl as m\nprint(json.dumps(m.without_episode_id(${JSON.stringify(schema)})))`);
    expect(JSON.parse(stripped).function.parameters).toEqual({ type: 'object', properties: { a: {} }, required: ['a'] });
  });
});

/**
 * verl's classes as far as envace_verl.py uses them (names and call shapes read from verl b178a3cd:
 * ToolAgentLoop.__init__'s tool listing / run / _handle_pending_state / _call_tool, FunctionCall,
 * ToolResponse) and fastmcp's Client, so the agent loop's own logic runs here without either; verl's
 * real client code against a real server is verl-mcp-clients.test.ts.
 */
const VERL_STAND_INS: Record<string, string> = {
  'verl/__init__.py': '',
  'verl/experimental/__init__.py': '',
  'verl/experimental/agent_loop/__init__.py': '',
  'verl/experimental/agent_loop/agent_loop.py': 'REGISTRY = {}\ndef register(name):\n    def wrap(cls):\n        REGISTRY[name] = cls\n        return cls\n    return wrap\n',
  'verl/experimental/agent_loop/tool_parser.py': 'class FunctionCall:\n    def __init__(self, name, arguments):\n        self.name, self.arguments = name, arguments\n',
  'verl/experimental/agent_loop/tool_agent_loop.py': [
    'import asyncio, json',
    'from verl.experimental.agent_loop.tool_parser import FunctionCall',
    'from verl.tools.schemas import ToolResponse',
    'class Data:',
    '    def __init__(self, messages):',
    '        self.messages, self.response_ids = messages, []',
    'class Output:',
    '    def __init__(self):',
    '        self.extra_fields = {}',
    'LISTINGS = []',
    'def initialize_tools_from_config(path):',
    '    LISTINGS.append(path)',
    '    return ["start_task", "finish", "get_order"]',
    'class ToolAgentLoop:',
    '    SCRIPT = []',
    '    def __init__(self, *args, **kwargs):',
    '        self.tools = {name: 1 for name in initialize_tools_from_config("tool_config.yaml")}',
    '        self.tool_schemas = ["start_task", "finish", "get_order"]',
    '        self.max_tool_response_length = 100',
    '        self.loop = asyncio.get_event_loop()',
    '        self.tokenizer = type("T", (), {"decode": staticmethod(lambda ids, skip_special_tokens=False: "".join(ids))})()',
    '        self.seen = []',
    '    async def _handle_pending_state(self, agent_data, sampling_params):',
    '        return "generating"',
    '    async def _call_tool(self, tool_call, tools_kwargs, agent_data):',
    '        self.seen.append((tool_call.name, json.loads(tool_call.arguments)))',
    '        return ToolResponse(text="ok"), 0.0, {}',
    '    async def run(self, sampling_params, **kwargs):',
    '        data = Data(kwargs["raw_prompt"])',
    '        self.prompt = data.messages',
    '        await self._handle_pending_state(data, sampling_params)',
    '        for name, args in self.SCRIPT:',
    '            self.seen.append(("->", (await self._call_tool(FunctionCall(name, json.dumps(args)), {}, data))[0].text))',
    '        data.response_ids = ["<answer>", "delivered", "</answer>"]',
    '        return Output()',
  ].join('\n'),
  'verl/tools/__init__.py': '',
  'verl/tools/schemas.py': 'class ToolResponse:\n    def __init__(self, text=None):\n        self.text = text\n',
  'fastmcp/__init__.py': [
    'import json',
    'class Part:',
    '    type = "text"',
    '    def __init__(self, text):',
    '        self.text = text',
    'class Result:',
    '    def __init__(self, value, error=False):',
    '        self.content, self.isError = [Part(value if isinstance(value, str) else json.dumps(value))], error',
    'class Client:',
    '    calls, made = [], []',
    '    def __init__(self, config):',
    '        Client.made.append(config)',
    '    async def __aenter__(self):',
    '        return self',
    '    async def call_tool_mcp(self, name, arguments):',
    '        Client.calls.append((name, arguments))',
    '        if name == "start_task":',
    '            return Result({"episode_id": "ep-1", "task_id": arguments["task_id"], "initial_observation": "the room"})',
    '        if name == "finish":',
    '            return Result({"episode_id": arguments["episode_id"], "task_id": "t-1", "reward": 1, "success": True, "format_error": False})',
    '        if name == "get_order":',
    '            return Result("ok", False)',
    '        return Result("Error: Tool \'%s\' not found" % name, True)',
  ].join('\n'),
};

describe('verl export: the agent loop over stand-ins for verl', () => {
  it('opens one episode, adds its id to every call, keeps episode tools from the model, and finishes with the last act’s answer', () => {
    const dir = tmp.make('envace-verl-stand-ins-');
    for (const [file, code] of Object.entries(VERL_STAND_INS)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), `${code}\n`);
    }
    const script = [
      'import asyncio, json, sys',
      `sys.path[:0] = [${JSON.stringify(dir)}, ${JSON.stringify(out)}]`,
      'import envace_verl as m',
      'import fastmcp',
      'from verl.experimental.agent_loop.agent_loop import REGISTRY',
      'from verl.experimental.agent_loop import tool_agent_loop',
      // verl makes each loop inside its worker's running event loop, one per trajectory.
      'async def trajectory():',
      '    loop = REGISTRY["envace_tool_agent"]()',
      '    loop.SCRIPT = [("get_order", {"order_id": "#W1"}), ("finish", {}), ("no_such_tool", {"x": 1})]',
      '    return loop, await loop.run({}, raw_prompt=[{"role": "user", "content": "hi"}], extra_info={"task_id": "t-1", "seed": 7})',
      'loop, output = asyncio.run(trajectory())',
      // A second trajectory in another event loop: no second tool listing, a new client for the new loop.
      'asyncio.run(trajectory())',
      'print(json.dumps({"tools": sorted(loop.tools), "schemas": loop.tool_schemas, "prompt": loop.prompt, "seen": loop.seen, "mcp": fastmcp.Client.calls, "clients": len(fastmcp.Client.made), "servers": list(fastmcp.Client.made[0]["mcpServers"]), "listings": tool_agent_loop.LISTINGS, "unpatched": tool_agent_loop.initialize_tools_from_config.__name__, "score": m.compute_score("envace/retail", "", "t-1", {"envace_finish": output.extra_fields["envace_finish"]})}))',
    ].join('\n');
    const got = JSON.parse(python(dir, script));
    expect(got.tools).toEqual(['get_order']);
    expect(got.schemas).toEqual([]);
    expect(got.prompt).toEqual([{ role: 'user', content: 'hi' }, { role: 'tool', content: 'the room' }]);
    expect(got.seen).toEqual([
      ['->', 'ok'],
      ['->', 'Error: unknown tool finish'],
      ['->', "Error: Tool 'no_such_tool' not found"],
    ]);
    const one = [
      ['start_task', { task_id: 't-1', seed: 7 }],
      ['get_order', { order_id: '#W1', episode_id: 'ep-1' }],
      ['no_such_tool', { x: 1, episode_id: 'ep-1' }],
      ['finish', { episode_id: 'ep-1', answer: 'delivered' }],
    ];
    expect(got.mcp).toEqual([...one, ...one]);
    // The folder's own server config, one client per event loop; verl's listing ran once and is restored.
    expect(got.servers).toEqual(['envace-retail']);
    expect(got.clients).toBe(2);
    expect(got.listings).toEqual(['tool_config.yaml']);
    expect(got.unpatched).toBe('initialize_tools_from_config');
    expect(got.score).toMatchObject({ score: 1, success: 1, finished: 1 });
  });

  it('without verl or fastmcp, building the agent loop raises the import error itself (not hydra’s “cannot locate”)', () => {
    const got = python(out, 'import envace_verl as m\ntry:\n    m.EnvaceToolAgentLoop()\nexcept ImportError as e:\n    print(type(e.__cause__).__name__, "|", e)');
    expect(got).toMatch(/^ModuleNotFoundError \| envace_verl.EnvaceToolAgentLoop needs verl and fastmcp in this Python: No module named '(fastmcp|verl)'$/);
  });
});

describe('verl export: refusals and the record', () => {
  it('needs a run: an imported model alone has no env, tasks or knobs', async () => {
    const model = nanoConfig();
    const e = await exportModel({ config: model, weights: randomWeights(model), tokenizer: smallTokenizer(), format: 'verl', outDir: join(tmp.make(), 'x') }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ExportError);
    expect((e as ExportError).message).toMatch(/--run ID/);
    const noTasks = await exportModel({ config: model, weights: randomWeights(model), tokenizer: smallTokenizer(), format: 'verl', outDir: join(tmp.make(), 'y'), verl: { ...verl, tasks: { train: [], heldout: [] } } }).catch((x: unknown) => x);
    expect((noTasks as ExportError).message).toMatch(/no train tasks/);
    // A parameter without one string type (tau2-telecom has some) would stop verl's tool loading.
    const odd = { ...env.tools()[0], parameters: { type: 'object', properties: { mode: { anyOf: [{ type: 'string' }, { type: 'null' }] }, kind: { type: 'string', enum: [1, 2] } } } };
    expect(verlToolProblems([...env.tools(), odd])).toEqual([`${odd.name}.mode has no single type (null)`, `${odd.name}.kind has a non-string enum`]);
    const badTools = await exportModel({ config: model, weights: randomWeights(model), tokenizer: smallTokenizer(), format: 'verl', outDir: join(tmp.make(), 'w'), verl: { ...verl, env: { ...verl.env, tools: [odd] } } }).catch((x: unknown) => x);
    expect((badTools as ExportError).message).toMatch(/verl's tool schema .* cannot load 2 parameters/);
    // nano's context (256) cannot hold retail's prompt and an act: the run could not have trained on it either.
    const short = await exportModel({ config: model, weights: randomWeights(model), tokenizer: smallTokenizer(), format: 'verl', outDir: join(tmp.make(), 'z'), verl }).catch((x: unknown) => x);
    expect((short as ExportError).message).toMatch(/passes the model's context of 256/);
  });

  it('the store records a verl export', () => {
    const store = new Store(openDatabase(join(tmp.make(), 'workbench.db'), migrations));
    const record = store.exports.insert({ runId: null, model: null, step: 20, format: 'verl', outDir: out, files: [{ name: 'README.md', bytes: 1 }] });
    expect(record.format).toBe('verl');
  });
});
