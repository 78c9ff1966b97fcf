/**
 * Household task generation: a family and a goal drawn from a seeded world, the expert's plan
 * (found by simulating the world, so every gold plan is known to work) and the checklist.
 *
 * Splits: heldout goals use (object kind, receptacle kind) pairs that train never uses; ood goals
 * are two-object tasks, a template train and heldout never show. In procedural worlds heldout
 * differs from train by its names instead (every receptacle and object is new; world.ts), so the
 * pair rule is off there: one generalisation gap at a time.
 */
import type { ChecklistItem, Split, Task, ToolCall } from '../types';
import { APPLIANCE_OF, OBJECT_KIND_BY_TYPE, type Transform } from './catalog';
import { applyCall, describeHouse } from './engine';
import { hashString, Rng } from '../../random';
import { cloneWorld, findItem, findReceptacle, generateWorld, type World, type WorldSize } from './world';

export const WORLD_MODES = ['fixed', 'procedural'] as const;
export type WorldMode = (typeof WORLD_MODES)[number];
export const TASK_MIXES = ['lookups', 'chains', 'all'] as const;
export type TaskMix = (typeof TASK_MIXES)[number];

export type HouseholdFamily = 'pick_place' | 'clean_place' | 'heat_place' | 'cool_place' | 'examine' | 'two_place';

export const SPLIT_FAMILIES: Record<Split, HouseholdFamily[]> = {
  train: ['pick_place', 'clean_place', 'heat_place', 'cool_place', 'examine'],
  heldout: ['pick_place', 'clean_place', 'heat_place', 'cool_place', 'examine'],
  ood: ['two_place'],
};

/** The curriculum: examine (find and name a place), then plain pick-and-place, then every family. ood keeps its own. */
const MIX_FAMILIES: Record<TaskMix, ReadonlySet<HouseholdFamily>> = {
  lookups: new Set(['examine']),
  chains: new Set(['examine', 'pick_place']),
  all: new Set(SPLIT_FAMILIES.train),
};

export function splitFamilies(split: Split, mix: TaskMix): HouseholdFamily[] {
  return split === 'ood' ? SPLIT_FAMILIES.ood : SPLIT_FAMILIES[split].filter((f) => MIX_FAMILIES[mix].has(f));
}

export interface PlaceGoal {
  object: string;
  target: string;
  transform: Transform | null;
}

/** Pairs in this bucket are reserved for the heldout split. */
export function isHeldoutPair(objectType: string, receptacleType: string): boolean {
  return hashString(`${objectType}|${receptacleType}`) % 4 === 0;
}

function pairAllowed(split: Split, objectType: string, receptacleType: string, procedural: boolean): boolean {
  if (split === 'ood' || procedural) return true;
  return isHeldoutPair(objectType, receptacleType) === (split === 'heldout');
}

const FAMILY_TRANSFORM: Partial<Record<HouseholdFamily, Transform>> = { clean_place: 'clean', heat_place: 'heat', cool_place: 'cool' };

function candidateGoals(world: World, split: Split, transform: Transform | null, exclude: Set<string>, procedural: boolean): PlaceGoal[] {
  const out: PlaceGoal[] = [];
  for (const item of world.items) {
    if (exclude.has(item.name)) continue;
    const kind = OBJECT_KIND_BY_TYPE[item.type];
    if (transform && !kind.transforms.includes(transform)) continue;
    for (const rec of world.receptacles) {
      if (rec.name === item.location || !kind.homes.includes(rec.type)) continue;
      // A transform's appliance as target would make the task "put it back where you used it"; skip.
      if (transform && rec.type === APPLIANCE_OF[transform]) continue;
      if (pairAllowed(split, item.type, rec.type, procedural)) out.push({ object: item.name, target: rec.name, transform });
    }
  }
  return out;
}

/** Simulates the plan step by step so a gold call that would fail is caught here, not in an episode. */
class Planner {
  readonly calls: ToolCall[] = [];
  private readonly world: World;

  constructor(world: World) {
    this.world = cloneWorld(world);
  }

  private step(name: string, args: { [k: string]: string }): void {
    const call = { name, arguments: args };
    const obs = applyCall(this.world, call);
    if (obs.startsWith('Nothing happens') || obs.startsWith('Error')) {
      throw new Error(`household planner produced a failing call ${JSON.stringify(call)}: ${obs}`);
    }
    this.calls.push(call);
  }

  private reach(receptacle: string): void {
    if (this.world.agentAt !== receptacle) this.step('go_to', { target: receptacle });
    const rec = findReceptacle(this.world, receptacle)!;
    if (rec.openable && !rec.isOpen) this.step('open', { target: receptacle });
  }

  place(goal: PlaceGoal): void {
    const source = findItem(this.world, goal.object)!.location!;
    this.reach(source);
    this.step('take', { object: goal.object, source });
    if (goal.transform) {
      const appliance = this.world.receptacles.find((r) => r.type === APPLIANCE_OF[goal.transform!])!.name;
      if (this.world.agentAt !== appliance) this.step('go_to', { target: appliance });
      this.step(goal.transform, { object: goal.object, appliance });
    }
    this.reach(goal.target);
    this.step('put', { object: goal.object, target: goal.target });
  }

  examine(object: string): string {
    const location = findItem(this.world, object)!.location!;
    this.reach(location);
    this.step('examine', { target: object });
    return location;
  }
}

function typeOf(name: string): string {
  return name.replace(/ \d+$/, '');
}

function goalPhrase(world: World, goal: PlaceGoal): string {
  const rec = findReceptacle(world, goal.target)!;
  const put = `put ${goal.transform ? 'it' : `the ${typeOf(goal.object)}`} ${rec.preposition} ${rec.name}`;
  return goal.transform ? `${goal.transform} the ${typeOf(goal.object)} and ${put}` : put;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function goalChecklist(goal: PlaceGoal): ChecklistItem[] {
  const items: ChecklistItem[] = [
    { kind: 'call', weight: 1, name: 'take', args: { object: goal.object }, description: `took the ${goal.object}` },
  ];
  if (goal.transform) {
    items.push({ kind: 'call', weight: 1, name: goal.transform, args: { object: goal.object }, description: `${goal.transform}ed the ${goal.object}` });
  }
  items.push({ kind: 'call', weight: 2, name: 'put', args: { object: goal.object, target: goal.target }, description: `put the ${goal.object} in/on the ${goal.target}` });
  return items;
}

export interface HouseholdTaskOptions {
  size: WorldSize;
  envId: string;
  worldMode?: WorldMode;
  taskMix?: TaskMix;
}

/** The world a task plays in, from its meta: what reset and the rehearsal's first observation both start from. */
export function taskWorld(worldSeed: number, size: WorldSize, split: Split, mode: WorldMode): World {
  return generateWorld(worldSeed, size, mode === 'procedural' ? { split } : undefined);
}

/** Task `index` of `split`; retries fresh worlds until the family has a goal legal for the split. */
export function generateTask(split: Split, index: number, opts: HouseholdTaskOptions): Task {
  const mode = opts.worldMode ?? 'fixed';
  const families = splitFamilies(split, opts.taskMix ?? 'all');
  const family = families[index % families.length];
  for (let attempt = 0; attempt < 200; attempt++) {
    const worldSeed = hashString(`household|${split}|${index}|${attempt}|${opts.size.rooms}x${opts.size.objects}`);
    const world = taskWorld(worldSeed, opts.size, split, mode);
    const rng = new Rng(worldSeed ^ 0x9e3779b9);
    const task = buildTask(world, family, split, rng, mode === 'procedural');
    if (!task) continue;
    return {
      id: `${opts.envId}-${split}-${index}`,
      env: opts.envId,
      split,
      instruction: task.instruction,
      gold: { calls: task.calls, answer: task.answer },
      checklist: task.checklist,
      maxTurns: 2 * (task.calls.length + 1) + 4,
      meta: {
        worldSeed,
        rooms: opts.size.rooms,
        objects: opts.size.objects,
        ...(mode === 'procedural' ? { worldMode: mode } : {}),
        family,
        goals: task.goals.map((g) => ({ object: g.object, target: g.target, transform: g.transform })),
        answer: task.answer,
        // The scene a real episode opens with (the world is fixed by the task), so a rehearsal that
        // never opens an episode still starts from it.
        initialObservation: describeHouse(taskWorld(worldSeed, opts.size, split, mode)),
      },
    };
  }
  throw new Error(`household: no legal ${family} task for split ${split} in 200 worlds of size ${opts.size.rooms}x${opts.size.objects}`);
}

interface BuiltTask {
  instruction: string;
  calls: ToolCall[];
  answer: string | null;
  checklist: ChecklistItem[];
  goals: PlaceGoal[];
}

function buildTask(world: World, family: HouseholdFamily, split: Split, rng: Rng, procedural: boolean): BuiltTask | null {
  const planner = new Planner(world);
  if (family === 'examine') {
    const options = world.items.filter((i) => pairAllowed(split, i.type, findReceptacle(world, i.location!)!.type, procedural));
    if (options.length === 0) return null;
    const item = rng.pick(options);
    const location = planner.examine(item.name);
    return {
      instruction: `Find the ${item.type}, examine it, and tell me which receptacle it is in.`,
      calls: planner.calls,
      answer: location,
      checklist: [
        { kind: 'call', weight: 1, name: 'examine', args: { target: item.name }, description: `examined the ${item.name}` },
        { kind: 'answer', weight: 2, expected: [location], match: 'normalised', description: `answered ${location}` },
      ],
      goals: [],
    };
  }
  const goals: PlaceGoal[] = [];
  const count = family === 'two_place' ? 2 : 1;
  for (let g = 0; g < count; g++) {
    const transform = family === 'two_place' ? rng.pick<Transform | null>([null, 'clean', 'heat', 'cool']) : (FAMILY_TRANSFORM[family] ?? null);
    const options = candidateGoals(world, split, transform, new Set(goals.map((x) => x.object)), procedural);
    if (options.length === 0) return null;
    goals.push(rng.pick(options));
  }
  for (const goal of goals) planner.place(goal);
  const phrases = goals.map((goal) => goalPhrase(world, goal));
  return {
    instruction: `${capitalise(phrases.join(', then '))}.`,
    calls: planner.calls,
    answer: null,
    checklist: goals.flatMap(goalChecklist),
    goals,
  };
}
