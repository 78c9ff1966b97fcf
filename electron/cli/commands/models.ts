import type { Command } from 'commander';
import { ExportFormat, GgufDtype } from '../../contract';
import { withEngine } from '../engine-session';
import { CliError, EXIT, table } from '../output';
import { act, leaf, type CommonOptions } from './common';
import { registerHubCommands } from './models-hub';

const size = (bytes: number) => (bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);

export function registerModels(program: Command): void {
  leaf(program.command('import').description('import a Llama/Qwen2/Qwen3-style Hugging Face folder or llama.cpp GGUF file so runs can use it'))
    .option('--hf <dir>', 'folder with config.json, *.safetensors, tokenizer.json')
    .option('--gguf <file>', 'a llama.cpp GGUF file (llama, qwen2, qwen3; F32/F16/BF16, Q4_0…Q8_0, Q4_K/Q5_K/Q6_K; byte-level BPE tokenizer)')
    .option('--name <name>', 'name to register it under (default: the folder name, or the file name without .gguf)')
    .action(
      act<CommonOptions & { hf?: string; gguf?: string; name?: string }>(async (_args, opts, out) => {
        if ((opts.hf === undefined) === (opts.gguf === undefined)) throw new CliError('give exactly one of --hf DIR or --gguf FILE', EXIT.usage);
        const source = opts.gguf !== undefined ? { ggufFile: opts.gguf } : { hfDir: opts.hf! };
        const model = await withEngine(opts.home, (api) => api.call('models.import', { ...source, name: opts.name }));
        out.result({ model: model.name, ...model }, () => `imported ${model.name}: ${model.architecture}, ${(model.paramCount / 1e6).toFixed(2)}M parameters, vocabulary ${model.vocabSize}`);
      }),
    );

  const models = program.command('models').description('imported models; pull one from the Hugging Face Hub');
  leaf(models.command('list', { isDefault: true }).description('imported models')).action(
    act(async (_args, opts, out) => {
      const { items } = await withEngine(opts.home, (api) => api.call('models.list'));
      out.result({ items }, () =>
        items.length === 0
          ? 'No imported models. Import one with `envace import --hf DIR` or pull one with `envace models pull OWNER/NAME`.'
          : table([['NAME', 'ARCHITECTURE', 'PARAMS', 'LAYERS', 'WIDTH', 'VOCAB', 'SOURCE'], ...items.map((m) => [m.name, m.architecture, `${(m.paramCount / 1e6).toFixed(2)}M`, String(m.nLayers), String(m.dModel), String(m.vocabSize), m.source])]),
      );
    }),
  );
  registerHubCommands(models);

  leaf(program.command('export').description("export a run's checkpoint or an imported model as hf, onnx, lora or gguf; a run as a verl training folder (verl)"))
    .option('--run <id>', 'run id')
    .option('--step <n>', 'checkpoint step (default: the last)')
    .option('--model <name>', 'an imported model')
    .requiredOption('--format <format>', 'hf | onnx | lora | gguf | verl (a run only: task set, configs and weights for verl)')
    .option('--out <dir>', 'destination folder (default: a new folder under the data home exports/)')
    .option('--gguf-dtype <dtype>', 'f32 | f16 | q8_0 (8-bit blocks as llama.cpp quantises them; norms stay f32)', 'f16')
    .option('--force', 'replace an earlier export in --out')
    .option('--base', 'lora: always write the base the adapter applies to in base/ (default: where training grew its vocabulary)')
    .option('--no-base', 'lora: never write the base (an earlier export of the run has it); adapter_config.json names the imported model')
    .action(
      act<CommonOptions & { run?: string; step?: string; model?: string; format: string; out?: string; ggufDtype: string; force?: boolean; base?: boolean }>(async (_args, opts, out) => {
        if (Boolean(opts.run) === Boolean(opts.model)) throw new CliError('give exactly one of --run ID or --model NAME', EXIT.usage);
        const format = ExportFormat.safeParse(opts.format);
        if (!format.success) throw new CliError(`--format must be one of ${ExportFormat.options.join(', ')}`, EXIT.usage);
        if (opts.base !== undefined && format.data !== 'lora') throw new CliError(`--base and --no-base are for --format lora (the base a LoRA adapter applies to)`, EXIT.usage);
        const ggufDtype = GgufDtype.safeParse(opts.ggufDtype);
        if (!ggufDtype.success) throw new CliError(`--gguf-dtype must be one of ${GgufDtype.options.join(', ')}`, EXIT.usage);
        const step = opts.step === undefined ? undefined : Number(opts.step);
        if (step !== undefined && !(Number.isInteger(step) && step >= 0)) throw new CliError('--step must be a checkpoint step', EXIT.usage);
        const record = await withEngine(opts.home, (api) =>
          api.call('exports.create', {
            source: opts.run ? { run: opts.run, step } : { model: opts.model! },
            format: format.data,
            outDir: opts.out,
            ggufDtype: ggufDtype.data,
            force: Boolean(opts.force),
            loraBase: opts.base === undefined ? 'auto' : opts.base ? 'include' : 'omit',
          }),
        );
        const notes = record.notes?.length ? ['', ...record.notes] : [];
        out.result(record, () => [`wrote ${record.outDir}`, ...record.files.map((f) => `  ${f.name.padEnd(28)} ${size(f.bytes)}`), ...notes, '', record.loadSnippet].join('\n'));
      }),
    );
}
