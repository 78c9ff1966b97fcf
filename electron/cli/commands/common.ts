import type { Command } from 'commander';
import { createOutput, type Output } from '../output';

export interface CommonOptions {
  home?: string;
  json?: boolean;
}

/** Every leaf command takes --home and --json (architecture.md "The command line"). */
export function leaf(command: Command): Command {
  return command.option('--home <dir>', 'data home (default: $ENVACE_HOME or ~/.envace)').option('--json', 'print one JSON object as the last line of stdout');
}

/** Adapts a handler to commander's action signature: positional args, options, output. */
export function act<O extends CommonOptions>(handler: (args: string[], opts: O, out: Output) => Promise<void>) {
  return async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const opts = command.opts() as O;
    const positional = params.slice(0, -2).filter((p): p is string => typeof p === 'string');
    await handler(positional, opts, createOutput(Boolean(opts.json)));
  };
}
