/**
 * The household rules: one tool call in, the world mutated and a text observation out. Every
 * failure is an observation (never an exception), worded so an agent can recover from it.
 */
import type { JsonValue, ToolCall } from '../types';
import { APPLIANCE_OF, type Transform } from './catalog';
import { HOUSEHOLD_TOOL_NAMES } from './tools';
import { findItem, findReceptacle, homesOf, itemsIn, type Item, type Receptacle, type World } from './world';

function article(name: string): string {
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}

function listThings(names: string[]): string {
  if (names.length === 0) return 'nothing';
  return names.map(article).join(', ');
}

function itemState(item: Item): string {
  const flags = [item.clean ? 'clean' : 'not clean', item.hot ? 'hot' : item.cold ? 'cold' : 'at room temperature'];
  return flags.join(', ');
}

/** What the agent sees at a receptacle: its contents, or that it is closed. */
export function describeReceptacle(world: World, rec: Receptacle): string {
  if (rec.openable && !rec.isOpen) return `The ${rec.name} is closed.`;
  const contents = listThings(itemsIn(world, rec.name).map((i) => i.name));
  const prefix = rec.openable ? `The ${rec.name} is open. In it` : `${rec.preposition === 'in' ? 'In' : 'On'} the ${rec.name}`;
  return `${prefix}, you see ${contents}.`;
}

export function describeHouse(world: World): string {
  const lines = [`You are in a house with ${world.rooms.length} room${world.rooms.length === 1 ? '' : 's'}: ${world.rooms.join(', ')}.`];
  for (const room of world.rooms) {
    const names = world.receptacles.filter((r) => r.room === room).map((r) => r.name);
    lines.push(`In the ${room}, you see ${listThings(names)}.`);
  }
  // Procedural worlds show every object's place up front, in the words a visit would use.
  if (world.showContents) {
    for (const rec of world.receptacles) {
      const here = itemsIn(world, rec.name);
      if (here.length > 0) lines.push(`${rec.preposition === 'in' ? 'In' : 'On'} the ${rec.name}, you see ${listThings(here.map((i) => i.name))}.`);
    }
  }
  lines.push(`You are standing in the middle of the ${world.agentRoom}. Your hands are empty.`);
  return lines.join('\n');
}

function holdingText(world: World): string {
  return world.holding ? `You are holding the ${world.holding}.` : 'You are not holding anything.';
}

function look(world: World): string {
  const lines: string[] = [];
  const here = world.agentAt ? findReceptacle(world, world.agentAt) : undefined;
  if (here) {
    lines.push(`You are at the ${here.name} in the ${here.room}.`, describeReceptacle(world, here));
  } else {
    lines.push(`You are standing in the middle of the ${world.agentRoom}.`);
  }
  const around = world.receptacles.filter((r) => r.room === world.agentRoom && r.name !== here?.name).map((r) => r.name);
  lines.push(`Around you in the ${world.agentRoom}, you see ${listThings(around)}.`);
  const others = world.rooms.filter((r) => r !== world.agentRoom);
  if (others.length > 0) lines.push(`Other rooms: ${others.join(', ')}.`);
  lines.push(holdingText(world));
  return lines.join('\n');
}

type Args = { [key: string]: JsonValue };

function stringArg(args: Args, key: string): string | null {
  const v = args[key];
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

/** The receptacle the agent must be standing at for `tool`, or an error observation. */
function receptacleHere(world: World, raw: string, tool: string): Receptacle | string {
  const rec = findReceptacle(world, raw);
  if (!rec) return `Nothing happens: there is no receptacle called "${raw}" in this house.`;
  if (world.agentAt !== rec.name) return `Nothing happens: you must go to the ${rec.name} before you can ${tool} it.`;
  return rec;
}

function goTo(world: World, raw: string): string {
  const rec = findReceptacle(world, raw);
  if (!rec) return `Nothing happens: there is no receptacle called "${raw}" in this house.`;
  const lines: string[] = [];
  if (rec.room !== world.agentRoom) lines.push(`You leave the ${world.agentRoom} and enter the ${rec.room}.`);
  lines.push(world.agentAt === rec.name ? `You are already at the ${rec.name}.` : `You arrive at the ${rec.name}.`);
  world.agentAt = rec.name;
  world.agentRoom = rec.room;
  lines.push(describeReceptacle(world, rec));
  return lines.join('\n');
}

function openClose(world: World, raw: string, open: boolean): string {
  const verb = open ? 'open' : 'close';
  const rec = receptacleHere(world, raw, verb);
  if (typeof rec === 'string') return rec;
  if (!rec.openable) return `Nothing happens: the ${rec.name} cannot be ${open ? 'opened' : 'closed'}.`;
  if (rec.isOpen === open) return `The ${rec.name} is already ${open ? 'open' : 'closed'}.`;
  rec.isOpen = open;
  if (!open) return `You close the ${rec.name}.`;
  return `You open the ${rec.name}. ${describeReceptacle(world, rec)}`;
}

function take(world: World, objectRaw: string, sourceRaw: string): string {
  const rec = receptacleHere(world, sourceRaw, 'take things from');
  if (typeof rec === 'string') return rec;
  if (rec.openable && !rec.isOpen) return `Nothing happens: the ${rec.name} is closed.`;
  const item = findItem(world, objectRaw);
  if (!item || item.location !== rec.name) return `Nothing happens: there is no "${objectRaw}" ${rec.preposition} the ${rec.name}.`;
  if (world.holding) return `Nothing happens: your hands are full, you are holding the ${world.holding}.`;
  item.location = null;
  world.holding = item.name;
  return `You pick up the ${item.name} from the ${rec.name}.`;
}

function put(world: World, objectRaw: string, targetRaw: string): string {
  const rec = receptacleHere(world, targetRaw, 'put things in');
  if (typeof rec === 'string') return rec;
  const item = findItem(world, objectRaw);
  if (!item || world.holding !== item.name) return `Nothing happens: you are not holding "${objectRaw}". ${holdingText(world)}`;
  if (rec.openable && !rec.isOpen) return `Nothing happens: the ${rec.name} is closed.`;
  if (!homesOf(item.type).includes(rec.type)) return `Nothing happens: the ${item.name} does not fit ${rec.preposition} the ${rec.name}.`;
  item.location = rec.name;
  world.holding = null;
  return `You put the ${item.name} ${rec.preposition} the ${rec.name}.`;
}

function transform(world: World, kind: Transform, objectRaw: string, applianceRaw: string): string {
  const rec = receptacleHere(world, applianceRaw, `${kind} with`);
  if (typeof rec === 'string') return rec;
  const needed = APPLIANCE_OF[kind];
  if (rec.type !== needed) return `Nothing happens: you can only ${kind} things with a ${needed}, not the ${rec.name}.`;
  const item = findItem(world, objectRaw);
  if (!item || world.holding !== item.name) return `Nothing happens: you are not holding "${objectRaw}". ${holdingText(world)}`;
  if (kind === 'clean') {
    item.clean = true;
    return `You clean the ${item.name} using the ${rec.name}.`;
  }
  if (kind === 'heat') {
    item.hot = true;
    item.cold = false;
    return `You heat the ${item.name} using the ${rec.name}.`;
  }
  item.cold = true;
  item.hot = false;
  return `You cool the ${item.name} using the ${rec.name}.`;
}

function examine(world: World, raw: string): string {
  const item = findItem(world, raw);
  if (item) {
    if (world.holding === item.name) return `You are holding the ${item.name}. It is ${itemState(item)}.`;
    const rec = item.location ? findReceptacle(world, item.location) : undefined;
    const visible = rec && world.agentAt === rec.name && (!rec.openable || rec.isOpen);
    if (!visible || !rec) return `Nothing happens: you cannot see "${raw}" from here.`;
    return `The ${item.name} is ${rec.preposition} the ${rec.name}. It is ${itemState(item)}.`;
  }
  const rec = receptacleHere(world, raw, 'examine');
  if (typeof rec === 'string') return rec;
  return `This is the ${rec.name} in the ${rec.room}. ${describeReceptacle(world, rec)}`;
}

const REQUIRED_ARGS: Record<string, string[]> = {
  look: [],
  inventory: [],
  go_to: ['target'],
  open: ['target'],
  close: ['target'],
  take: ['object', 'source'],
  put: ['object', 'target'],
  clean: ['object', 'appliance'],
  heat: ['object', 'appliance'],
  cool: ['object', 'appliance'],
  examine: ['target'],
};

/** Run one tool call against the world (mutating it) and return the observation. */
export function applyCall(world: World, call: ToolCall): string {
  if (!HOUSEHOLD_TOOL_NAMES.has(call.name)) {
    return `Error: unknown tool "${call.name}". Available tools: ${[...HOUSEHOLD_TOOL_NAMES].join(', ')}.`;
  }
  const args = call.arguments ?? {};
  const values: string[] = [];
  for (const key of REQUIRED_ARGS[call.name]) {
    const v = stringArg(args, key);
    if (v === null) return `Error: tool "${call.name}" needs a non-empty string argument "${key}".`;
    values.push(v);
  }
  const [a, b] = values;
  switch (call.name) {
    case 'look':
      return look(world);
    case 'inventory':
      return holdingText(world);
    case 'go_to':
      return goTo(world, a);
    case 'open':
      return openClose(world, a, true);
    case 'close':
      return openClose(world, a, false);
    case 'take':
      return take(world, a, b);
    case 'put':
      return put(world, a, b);
    case 'clean':
    case 'heat':
    case 'cool':
      return transform(world, call.name, a, b);
    default:
      return examine(world, a);
  }
}
