import { Command, CommanderError } from 'commander';
import { registerBench } from './commands/bench';
import { registerEnvs } from './commands/envs';
import { registerEval } from './commands/eval';
import { registerExperiment } from './commands/experiment';
import { registerGpu } from './commands/gpu';
import { registerHome } from './commands/home';
import { registerMcp } from './commands/mcp';
import { registerModels } from './commands/models';
import { registerRehearse } from './commands/rehearse';
import { registerRuns } from './commands/runs';
import { registerServe } from './commands/serve';
import { registerTrain } from './commands/train';
import { registerSystem } from './commands/system';
import { EXIT, reportError } from './output';

export function buildProgram(): Command {
  const program = new Command('envace')
    .description('EnvACE Workbench: train small LLM agents on your machine with world rehearsal')
    .showHelpAfterError()
    .exitOverride();
  registerRuns(program);
  registerTrain(program);
  registerExperiment(program);
  registerEval(program);
  registerBench(program);
  registerModels(program);
  registerRehearse(program);
  registerEnvs(program);
  registerSystem(program);
  registerGpu(program);
  registerHome(program);
  registerServe(program);
  registerMcp(program);
  program.commands.forEach(function override(cmd: Command) {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  });
  return program;
}

/** Parse and run; returns the exit code instead of exiting, so tests can call it. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are successes; usage errors were already printed by commander.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportError(error);
  }
}
