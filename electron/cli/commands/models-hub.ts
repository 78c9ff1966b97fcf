import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import type { ModelsPullProgress } from '../../contract';
import { withEngine } from '../engine-session';
import { CliError, EXIT, table } from '../output';
import { eta } from '../progress';
import { act, leaf, type CommonOptions } from './common';

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** One progress line: percent, bytes, the file moving and the time left. */
export function pullProgressLine(p: ModelsPullProgress): string {
  if (p.phase === 'resolving') return `resolving ${p.repo} on the Hub…`;
  if (p.phase === 'importing') return `importing ${p.repo}…`;
  const pct = p.fraction === null ? '  ?' : String(Math.floor(p.fraction * 100)).padStart(3);
  return `${pct}%  ${mib(p.doneBytes)} / ${mib(p.totalBytes)}${p.file ? `  ${p.file}` : ''}  eta ${eta(p.etaMs)}`;
}

/**
 * Pull progress on stderr, so stdout keeps the result (and with --json only its one JSON line): a bar
 * on a terminal, otherwise a line per percent and per phase.
 */
function stderrProgress(): { show(p: ModelsPullProgress): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({ format: '{bar} {percentage}% | {label} | eta {etaText}', hideCursor: true, stream: process.stderr }, cliProgress.Presets.shades_classic);
    bar.start(100, 0, { label: 'resolving', etaText: '…' });
    return {
      show: (p) => bar.update(Math.round((p.fraction ?? 0) * 100), { label: p.phase === 'downloading' ? `${mib(p.doneBytes)} / ${mib(p.totalBytes)} ${p.file ?? ''}` : p.phase, etaText: eta(p.etaMs) }),
      stop: () => bar.stop(),
    };
  }
  let last = '';
  return {
    show: (p) => {
      const key = `${p.phase}:${p.fraction === null ? '' : Math.floor(p.fraction * 100)}`;
      if (key === last || p.phase === 'done') return;
      last = key;
      process.stderr.write(`${pullProgressLine(p)}\n`);
    },
    stop: () => {},
  };
}

/** `models pull` and `models search`: the Hugging Face Hub (HF_ENDPOINT, HF_TOKEN) from the command line. */
export function registerHubCommands(models: Command): void {
  leaf(
    models
      .command('pull')
      .argument('<repo>', 'OWNER/NAME or OWNER/NAME@REVISION (branch, tag or commit)')
      .description('download a model from the Hugging Face Hub (safetensors, config, tokenizer; resumable, sha256-checked) and import it; HF_TOKEN for gated repos, HF_ENDPOINT for another Hub'),
  )
    .option('--name <name>', 'name to import it under (default: the repo NAME)')
    .option('--offline', 'use only what an earlier pull left in the cache (as HF_HUB_OFFLINE=1)')
    .action(
      act<CommonOptions & { name?: string; offline?: boolean }>(async ([repo], opts, out) => {
        if (!repo) throw new CliError('give the model as OWNER/NAME[@REVISION]', EXIT.usage);
        const progress = stderrProgress();
        const pullId = `cli-${process.pid}`;
        const r = await withEngine(opts.home, async (api) => {
          const off = api.on('models.pull.progress', (p) => p.pullId === pullId && progress.show(p));
          try {
            return await api.call('models.pull', { repo, name: opts.name, offline: Boolean(opts.offline), pullId });
          } finally {
            off();
            progress.stop();
          }
        });
        out.result({ ...r, model: r.model.name, summary: r.model }, () =>
          [
            ...(r.note ? [r.note] : []),
            `pulled ${r.repo}@${r.revision} (commit ${r.commit.slice(0, 12)}, ${r.files.length} files, ${mib(r.totalBytes)}; ${r.fromCache ? 'from the cache' : `${mib(r.downloadedBytes)} downloaded`})`,
            `imported ${r.model.name}: ${r.model.architecture}, ${(r.model.paramCount / 1e6).toFixed(2)}M parameters, vocabulary ${r.model.vocabSize}`,
          ].join('\n'),
        );
      }),
    );

  leaf(models.command('search').argument('<query>', 'words in the model id').description('search the Hugging Face Hub for text-generation models with safetensors weights'))
    .option('--limit <n>', 'how many (1–50)', '20')
    .action(
      act<CommonOptions & { limit: string }>(async ([query], opts, out) => {
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 50) throw new CliError('--limit must be 1–50', EXIT.usage);
        const r = await withEngine(opts.home, (api) => api.call('models.search', { query: query ?? '', limit }));
        out.result(r, () =>
          r.items.length === 0
            ? `No text-generation models with safetensors weights match ${JSON.stringify(query)} on ${r.endpoint}.`
            : table([['MODEL', 'DOWNLOADS', 'LIKES', 'GATED'], ...r.items.map((h) => [h.id, String(h.downloads), String(h.likes), h.gated ? 'yes (HF_TOKEN)' : 'no'])]),
        );
      }),
    );
}
