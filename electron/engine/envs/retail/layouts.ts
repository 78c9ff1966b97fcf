/**
 * Varied layouts (issue 21, "content-based copying"): with one template per family a small model
 * learns to copy an id from a fixed token position, and any text that moves the id (a longer
 * system text, a memory block) breaks it. Under `layout: 'varied'` each task gets, drawn from its
 * own seed so the same task always reads the same:
 *   - one of several phrasings of its family's question,
 *   - 0–2 preamble sentences before it and 0–2 after it (lengths vary by tens of tokens),
 *   - a system note of varying length after the env's description,
 *   - (procedural worlds) records whose field order varies and that carry 0–3 distractor fields.
 * Only the text around the entities changes: the entities, calls, answers and checks stay the task's.
 */
import type { JsonObject } from '../tau2/db';
import type { JsonValue } from '../types';
import type { Params } from './families';
import { pick, shuffle, type Rng } from './world';

export const LAYOUTS = ['fixed', 'varied'] as const;
export type Layout = (typeof LAYOUTS)[number];

type Template = (p: Params) => string;
const who = (p: Params): string => `${p.first_name} ${p.last_name} (zip ${p.zip})`;
const whoAlt = (p: Params): string => `${p.first_name} ${p.last_name}, zip code ${p.zip},`;

/** Phrasings per family id; the first is the family's own (fixed-layout) instruction. */
const TEMPLATES: Record<string, readonly Template[]> = {
  'order-status': [
    (p) => `What is the status of order ${p.order_id}?`,
    (p) => `Can you tell me where order ${p.order_id} stands?`,
    (p) => `Order ${p.order_id}: what is its current status?`,
    (p) => `I would like to know the status of my order ${p.order_id}.`,
    (p) => `Please look up order ${p.order_id} and tell me its status.`,
  ],
  'item-price': [
    (p) => `What is the price of item ${p.item_id}?`,
    (p) => `How much does item ${p.item_id} cost?`,
    (p) => `Item ${p.item_id}: what is its price?`,
    (p) => `Please check the price of the item with id ${p.item_id}.`,
    (p) => `I am thinking of buying item ${p.item_id}. What does it cost?`,
  ],
  'user-city': [
    (p) => `In which city is the default address of user ${p.user_id}?`,
    (p) => `Which city does user ${p.user_id} live in, by their default address?`,
    (p) => `User ${p.user_id}: what city is on their default address?`,
    (p) => `Please find the city of the default address for user ${p.user_id}.`,
    (p) => `My user id is ${p.user_id}. Which city is my default address in?`,
  ],
  'order-count': [
    (p) => `How many orders does ${who(p)} have?`,
    (p) => `Count the orders of ${whoAlt(p)} please.`,
    (p) => `I am ${whoAlt(p)} and I want to know how many orders I have.`,
  ],
  'first-order-status': [
    (p) => `What is the status of the first order of ${who(p)}?`,
    (p) => `For ${whoAlt(p)} what is the status of their first order?`,
    (p) => `I am ${whoAlt(p)}. What is the status of my first order?`,
  ],
};

const PREAMBLES = [
  'Hi there.',
  'Hello!',
  'Good morning, I hope you are well.',
  'I have a quick question about my account.',
  'Sorry to bother you again, the last agent could not help me.',
  'I was told to contact this desk for anything about orders and items.',
  'My friend recommended this store and I bought a few things last month.',
  'Thanks for picking up so fast.',
  'This is my second time writing today.',
  'I am on my phone, so please keep it short.',
];

const CLOSINGS = [
  'Thanks!',
  'Thank you very much.',
  'I need it for a form I am filling in.',
  'Please answer as briefly as you can.',
  'Have a nice day.',
  'It is for my records, nothing urgent.',
  'My sister asked me the same thing yesterday and I did not know what to tell her, so I thought I would ask you directly.',
  'I tried to find this on the website myself but the page kept loading forever and then showed me an empty list.',
  'If you need anything else from me, like my email address or the card I paid with, just say so and I will look it up.',
  'The weather here has been terrible all week, so I have been doing all my shopping online.',
  'I will wait here for your answer, take your time.',
  'Also, your new app looks much nicer than the old one.',
];

const SYSTEM_NOTES = [
  'Be polite and precise.',
  'Answer with the value the customer asked for.',
  'Customers may write a greeting or other text around their question; only the question matters.',
  'Use the tools to look things up; never guess an id, a price, a status or a name.',
  'Today the store is open as usual. Deliveries are running on time and the catalogue is up to date.',
  'The customer has been verified by the front desk. Keep your reply short and use only what the tools return.',
];

/** Between `min` and `max` distinct picks from `xs`, in a drawn order. */
function some(xs: readonly string[], min: number, max: number, rng: Rng): string[] {
  return shuffle(xs, rng).slice(0, min + Math.floor(rng() * (max - min + 1)));
}

/**
 * The task's instruction under a varied layout: a drawn phrasing with a drawn preamble and closing.
 * Closings run from none to four sentences (0 to ~90 tokens after the question): with at most two
 * short ones, a model trained here kept its success under 16 inserted tokens after the instruction
 * but lost 10–32 points under 64 (README "Learning to generalise").
 */
export function variedInstruction(familyId: string, base: string, p: Params, rng: Rng): string {
  const templates = TEMPLATES[familyId];
  const question = templates ? pick(templates, rng)(p) : base;
  return [...some(PREAMBLES, 0, 2, rng), question, ...some(CLOSINGS, 0, 4, rng)].join(' ');
}

/** A note for the task's system block: 0–2 drawn sentences (empty: the description alone). */
export function systemNote(rng: Rng): string {
  return some(SYSTEM_NOTES, 0, 2, rng).join(' ');
}

const TIERS = ['bronze', 'silver', 'gold', 'platinum'];
const CHANNELS = ['web', 'phone', 'store', 'app'];
/** Fields a varied world adds to a record: plausible, and never one a task asks about. */
const DISTRACTORS: ReadonlyArray<[string, (rng: Rng) => JsonValue]> = [
  ['loyalty_tier', (rng) => pick(TIERS, rng)],
  ['channel', (rng) => pick(CHANNELS, rng)],
  ['gift_wrap', (rng) => rng() < 0.5],
  ['rating', (rng) => 1 + Math.floor(rng() * 5)],
  ['note', (rng) => pick(['none', 'leave at the door', 'call on arrival', 'fragile'], rng)],
];

/**
 * `rec` with its fields in a drawn order, 0–3 distractor fields among them (unless `distractors` is false), and the fields named in
 * `last` kept at the end in their order (the long ones: a capped observation still shows the rest).
 */
export function variedRecord(rec: JsonObject, rng: Rng, last: readonly string[] = [], distractors = true): JsonObject {
  const extra = distractors ? shuffle(DISTRACTORS, rng).slice(0, Math.floor(rng() * 4)) : [];
  const entries: Array<[string, JsonValue]> = [...Object.entries(rec).filter(([k]) => !last.includes(k)), ...extra.map(([k, f]): [string, JsonValue] => [k, f(rng)])];
  const tail = last.filter((k) => k in rec).map((k): [string, JsonValue] => [k, rec[k]]);
  return Object.fromEntries([...shuffle(entries, rng), ...tail]);
}
