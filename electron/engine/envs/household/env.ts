/**
 * `household`: a seeded text world in the spirit of ALFWorld (rooms, receptacles, objects;
 * pick-and-place, clean/heat/cool-then-place, examine; two-object tasks out of distribution).
 */
import { GeneratedTaskSet } from '../task-set';
import type { ExpertPolicy, Split, Task, TaskRef, ToolEnv, ToolSpec } from '../types';
import { HouseholdEpisode } from './episode';
import { replayExpert } from './expert';
import { generateTask, TASK_MIXES, taskWorld, WORLD_MODES, type TaskMix, type WorldMode } from './tasks';
import { HOUSEHOLD_TOOLS } from './tools';
import { validateWorldSize, type WorldSize } from './world';

export interface HouseholdOptions {
  /** Rooms in play (1–5; the kitchen is always one). */
  rooms?: number;
  /** Objects in play (distinct kinds). */
  objects?: number;
  /** Tasks generated per split. */
  tasksPerSplit?: number;
  /** fixed: today's houses (heldout = unseen object/receptacle pairs); procedural: fresh names per task, all places shown. */
  worldMode?: WorldMode;
  /** Which families train and heldout draw from (ood keeps two-object tasks): examine, + pick-and-place, or all. */
  taskMix?: TaskMix;
}

export const HOUSEHOLD_DEFAULTS = { rooms: 2, objects: 10, tasksPerSplit: 60 } as const;

export class UnknownTaskError extends Error {
  override name = 'UnknownTaskError';
}

export class HouseholdEnv implements ToolEnv {
  readonly id = 'household';
  readonly track = 'scratch' as const;
  readonly description = 'A text household: walk between receptacles, open, take, put, clean, heat, cool and examine objects.';
  readonly size: WorldSize;
  readonly worldMode: WorldMode;
  readonly taskMix: TaskMix;
  private readonly tasksPerSplit: number;
  private readonly taskSet: GeneratedTaskSet;

  constructor(opts: HouseholdOptions = {}) {
    this.size = { rooms: opts.rooms ?? HOUSEHOLD_DEFAULTS.rooms, objects: opts.objects ?? HOUSEHOLD_DEFAULTS.objects };
    validateWorldSize(this.size);
    this.worldMode = opts.worldMode ?? 'fixed';
    this.taskMix = opts.taskMix ?? 'all';
    if (!WORLD_MODES.includes(this.worldMode)) throw new RangeError(`household: worldMode must be one of ${WORLD_MODES.join(', ')}, got ${JSON.stringify(opts.worldMode)}`);
    if (!TASK_MIXES.includes(this.taskMix)) throw new RangeError(`household: taskMix must be one of ${TASK_MIXES.join(', ')}, got ${JSON.stringify(opts.taskMix)}`);
    this.tasksPerSplit = opts.tasksPerSplit ?? HOUSEHOLD_DEFAULTS.tasksPerSplit;
    if (!Number.isInteger(this.tasksPerSplit) || this.tasksPerSplit < 1) {
      throw new RangeError(`household: tasksPerSplit must be a positive integer, got ${opts.tasksPerSplit}`);
    }
    this.taskSet = new GeneratedTaskSet(
      this.tasksPerSplit,
      (split, i) => generateTask(split, i, { size: this.size, envId: this.id, worldMode: this.worldMode, taskMix: this.taskMix }),
      (id) => new UnknownTaskError(`household: no task "${id}"`),
    );
  }

  tools(): ToolSpec[] {
    return HOUSEHOLD_TOOLS;
  }

  tasks(split: Split): TaskRef[] {
    return this.taskSet.refs(split);
  }

  task(id: string): Task {
    return this.taskSet.find(id);
  }

  /** The world is fixed by the task (its gold plan must stay valid); the seed therefore changes nothing. */
  async reset(task: Task, _seed: number): Promise<HouseholdEpisode> {
    const meta = task.meta ?? {};
    const { worldSeed, rooms, objects } = meta;
    if (task.env !== this.id || typeof worldSeed !== 'number' || typeof rooms !== 'number' || typeof objects !== 'number') {
      throw new UnknownTaskError(`household: task "${task.id}" is not a household task (env ${task.env}, missing world parameters)`);
    }
    return new HouseholdEpisode(task, taskWorld(worldSeed, { rooms, objects }, task.split, meta.worldMode === 'procedural' ? 'procedural' : 'fixed'));
  }

  expert(task: Task): ExpertPolicy {
    return replayExpert(task);
  }
}
