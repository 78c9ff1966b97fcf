/**
 * Task families of the from-scratch retail track. Each family samples its parameters for one
 * user of the world, words a short templated instruction, computes the right answer straight
 * from the DB, and has an expert script that solves the task through the tools only (it sees
 * the instruction's parameters and the observations, nothing else). Gold calls are the script's
 * own trajectory, so gold, expert and checks can never drift apart — and the answer computed
 * here from the DB independently verifies the script.
 */
import type { Db, JsonObject } from '../tau2/db';
import { CANCEL_REASONS } from './tools';
import { pick, type Rng } from './world';
import type { Action, ChecklistItem, JsonValue, Split } from '../types';

export type Params = { [key: string]: JsonValue };
/** Yields tool-call actions, receives each observation, returns the final answer action. */
export type ExpertScript = Generator<Action, Action, string>;

export const REFUSAL = 'cannot';
export const DONE = 'done';

export interface Family {
  id: string;
  kind: 'lookup' | 'chain' | 'write' | 'impossible';
  /** Which splits use it: the ood splits get templates the others never show. */
  splits: readonly Split[];
  sample(db: Db, userId: string, rng: Rng, fresh?: Fresh): Params | null;
  instruction(p: Params): string;
  answer(db: Db, p: Params): { expected: JsonValue; match: 'normalised' | 'numeric'; tolerance?: number };
  script(p: Params): ExpertScript;
  /** Checklist items beyond "made each gold call" and "answered right". */
  extraItems?(p: Params): ChecklistItem[];
}

/**
 * Where a family gets values that are not in the DB yet (a new address to move to). Procedural
 * worlds pass their own, so even these are drawn from the task's split and never shared across splits.
 */
export interface Fresh {
  address(): Params;
}

type Rec = JsonObject;
const user = (db: Db, id: string): Rec => (db.users as Rec)[id] as Rec;
const order = (db: Db, id: string): Rec => (db.orders as Rec)[id] as Rec;
const ordersOf = (db: Db, uid: string): string[] => user(db, uid).orders as string[];
const call = (name: string, args: Params): Action => ({ kind: 'calls', calls: [{ name, arguments: args }] });
const answer = (text: string): Action => ({ kind: 'answer', text });
const who = (p: Params): string => `${p.first_name} ${p.last_name} (zip ${p.zip})`;

function parseObs(obs: string): Rec | null {
  if (obs.startsWith('Error:')) return null;
  try {
    const v: unknown = JSON.parse(obs);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : null;
  } catch {
    return null;
  }
}

function identity(db: Db, uid: string): Params {
  const u = user(db, uid);
  const name = u.name as Rec;
  return { first_name: name.first_name, last_name: name.last_name, zip: (u.address as Rec).zip };
}

/** Authenticate by name + zip, as the policy requires; returns the user id or null. */
function* findUser(p: Params): Generator<Action, string | null, string> {
  const obs = yield call('find_user_id_by_name_zip', { first_name: p.first_name, last_name: p.last_name, zip: p.zip });
  return obs.startsWith('Error:') ? null : obs.replace(/^"|"$/g, '');
}

const STREETS = ['Oak Street', 'Maple Avenue', 'Cedar Lane', 'Pine Road', 'Elm Drive', 'Willow Way', 'Birch Court', 'Lakeview Drive'];
const CITIES: Array<[string, string, string]> = [
  ['Austin', 'TX', '78701'],
  ['Denver', 'CO', '80202'],
  ['Portland', 'OR', '97205'],
  ['Columbus', 'OH', '43215'],
  ['Phoenix', 'AZ', '85004'],
  ['Boston', 'MA', '02108'],
];

function newAddress(rng: Rng): Params {
  const [city, state, zip] = pick(CITIES, rng);
  return {
    address1: `${100 + Math.floor(rng() * 900)} ${pick(STREETS, rng)}`,
    address2: `Apt ${1 + Math.floor(rng() * 99)}`,
    city,
    state,
    country: 'USA',
    zip,
  };
}

const ADDRESS_KEYS = ['address1', 'address2', 'city', 'state', 'country', 'zip'];
const addressText = (p: Params): string => ADDRESS_KEYS.map((k) => p[k]).join(', ');
const addressArgs = (p: Params): Params => Object.fromEntries(ADDRESS_KEYS.map((k) => [k, p[k]]));

const orderStatus: Family = {
  id: 'order-status',
  kind: 'lookup',
  splits: ['train', 'heldout'],
  sample: (db, uid, rng) => ({ order_id: pick(ordersOf(db, uid), rng) }),
  instruction: (p) => `What is the status of order ${p.order_id}?`,
  answer: (db, p) => ({ expected: order(db, String(p.order_id)).status, match: 'normalised' }),
  *script(p) {
    const o = parseObs(yield call('get_order_details', { order_id: p.order_id }));
    return answer(o ? String(o.status) : REFUSAL);
  },
};

const itemPrice: Family = {
  id: 'item-price',
  kind: 'lookup',
  splits: ['train', 'heldout'],
  sample(db, uid, rng) {
    const items = order(db, pick(ordersOf(db, uid), rng)).items as Rec[];
    return { item_id: pick(items, rng).item_id };
  },
  instruction: (p) => `What is the price of item ${p.item_id}?`,
  answer(db, p) {
    for (const prod of Object.values(db.products as Rec)) {
      const v = ((prod as Rec).variants as Rec)[String(p.item_id)] as Rec | undefined;
      if (v) return { expected: v.price, match: 'numeric', tolerance: 0.005 };
    }
    throw new Error(`item ${p.item_id} is in an order but not in the catalogue`);
  },
  *script(p) {
    const v = parseObs(yield call('get_item_details', { item_id: p.item_id }));
    return answer(v ? String(v.price) : REFUSAL);
  },
};

const userCity: Family = {
  id: 'user-city',
  kind: 'lookup',
  splits: ['train', 'heldout'],
  sample: (_db, uid) => ({ user_id: uid }),
  instruction: (p) => `In which city is the default address of user ${p.user_id}?`,
  answer: (db, p) => ({ expected: (user(db, String(p.user_id)).address as Rec).city, match: 'normalised' }),
  *script(p) {
    const u = parseObs(yield call('get_user_details', { user_id: p.user_id }));
    return answer(u ? String((u.address as Rec).city) : REFUSAL);
  },
};

const orderCount: Family = {
  id: 'order-count',
  kind: 'chain',
  splits: ['train', 'heldout'],
  sample: (db, uid) => identity(db, uid),
  instruction: (p) => `How many orders does ${who(p)} have?`,
  answer: (db, p) => ({ expected: ordersOf(db, uidOf(db, p)).length, match: 'numeric', tolerance: 0 }),
  *script(p) {
    const uid = yield* findUser(p);
    if (!uid) return answer(REFUSAL);
    const u = parseObs(yield call('get_user_details', { user_id: uid }));
    return answer(u ? String((u.orders as string[]).length) : REFUSAL);
  },
};

const firstOrderStatus: Family = {
  id: 'first-order-status',
  kind: 'chain',
  splits: ['train', 'heldout'],
  sample: (db, uid) => identity(db, uid),
  instruction: (p) => `What is the status of the first order of ${who(p)}?`,
  answer: (db, p) => ({ expected: order(db, ordersOf(db, uidOf(db, p))[0]).status, match: 'normalised' }),
  *script(p) {
    const uid = yield* findUser(p);
    if (!uid) return answer(REFUSAL);
    const u = parseObs(yield call('get_user_details', { user_id: uid }));
    const first = u ? (u.orders as string[])[0] : undefined;
    if (!first) return answer(REFUSAL);
    const o = parseObs(yield call('get_order_details', { order_id: first }));
    return answer(o ? String(o.status) : REFUSAL);
  },
};

/** Cancel (a write when the order is pending, an impossible request otherwise): one script for both. */
function* cancelScript(p: Params): ExpertScript {
  const uid = yield* findUser(p);
  if (!uid) return answer(REFUSAL);
  const o = parseObs(yield call('get_order_details', { order_id: p.order_id }));
  if (!o || o.user_id !== uid || o.status !== 'pending') return answer(REFUSAL);
  const done = yield call('cancel_pending_order', { order_id: p.order_id, reason: p.reason });
  return answer(done.startsWith('Error:') ? REFUSAL : DONE);
}

function cancelSample(wantPending: boolean) {
  return (db: Db, uid: string, rng: Rng): Params | null => {
    const orders = ordersOf(db, uid).filter((id) => (order(db, id).status === 'pending') === wantPending);
    return orders.length ? { ...identity(db, uid), order_id: pick(orders, rng), reason: pick(CANCEL_REASONS, rng) } : null;
  };
}

const cancelInstruction = (p: Params): string => `${who(p)} wants order ${p.order_id} cancelled: ${p.reason}.`;

const cancelPending: Family = {
  id: 'cancel-pending',
  kind: 'write',
  splits: ['train', 'heldout'],
  sample: cancelSample(true),
  instruction: cancelInstruction,
  answer: () => ({ expected: DONE, match: 'normalised' }),
  script: cancelScript,
};

const cancelNotPending: Family = {
  id: 'cancel-not-pending',
  kind: 'impossible',
  splits: ['train', 'heldout'],
  sample: cancelSample(false),
  instruction: cancelInstruction,
  answer: () => ({ expected: REFUSAL, match: 'normalised' }),
  script: cancelScript,
  extraItems: () => [{ kind: 'no-call', weight: 1, name: 'cancel_pending_order', description: 'did not cancel a non-pending order' }],
};

const changeAddress: Family = {
  id: 'change-address',
  kind: 'write',
  splits: ['train', 'heldout'],
  sample: (_db, uid, rng, fresh) => ({ user_id: uid, ...(fresh?.address() ?? newAddress(rng)) }),
  instruction: (p) => `Change the default address of user ${p.user_id} to ${addressText(p)}.`,
  answer: () => ({ expected: DONE, match: 'normalised' }),
  *script(p) {
    const out = yield call('modify_user_address', { user_id: p.user_id, ...addressArgs(p) });
    return answer(out.startsWith('Error:') ? REFUSAL : DONE);
  },
};

// ---- ood: templates the other splits never show, and longer chains ----

const productOrderStatus: Family = {
  id: 'product-order-status',
  kind: 'chain',
  splits: ['ood'],
  sample(db, uid, rng) {
    const orders = ordersOf(db, uid);
    if (orders.length < 2) return null;
    const names = (id: string): string[] => (order(db, id).items as Rec[]).map((it) => String(it.name));
    const target = pick(orders, rng);
    const unique = names(target).filter((n) => orders.filter((o) => names(o).includes(n)).length === 1);
    return unique.length ? { ...identity(db, uid), product: pick(unique, rng) } : null;
  },
  instruction: (p) => `What is the status of the order of ${who(p)} that has a ${p.product}?`,
  answer(db, p) {
    const id = ordersOf(db, uidOf(db, p)).find((o) => (order(db, o).items as Rec[]).some((it) => it.name === p.product));
    return { expected: order(db, String(id)).status, match: 'normalised' };
  },
  *script(p) {
    const uid = yield* findUser(p);
    if (!uid) return answer(REFUSAL);
    const u = parseObs(yield call('get_user_details', { user_id: uid }));
    for (const id of u ? (u.orders as string[]) : []) {
      const o = parseObs(yield call('get_order_details', { order_id: id }));
      if (o && (o.items as Rec[]).some((it) => it.name === p.product)) return answer(String(o.status));
    }
    return answer(REFUSAL);
  },
};

const shipOrderTo: Family = {
  id: 'ship-order-to',
  kind: 'write',
  splits: ['ood'],
  sample(db, uid, rng, fresh) {
    const pending = ordersOf(db, uid).filter((id) => order(db, id).status === 'pending');
    return pending.length ? { order_id: pick(pending, rng), ...(fresh?.address() ?? newAddress(rng)) } : null;
  },
  instruction: (p) => `Ship pending order ${p.order_id} to ${addressText(p)}.`,
  answer: () => ({ expected: DONE, match: 'normalised' }),
  *script(p) {
    const o = parseObs(yield call('get_order_details', { order_id: p.order_id }));
    if (!o || o.status !== 'pending') return answer(REFUSAL);
    const out = yield call('modify_pending_order_address', { order_id: p.order_id, ...addressArgs(p) });
    return answer(out.startsWith('Error:') ? REFUSAL : DONE);
  },
};

const orderTotal: Family = {
  id: 'order-total',
  kind: 'chain',
  splits: ['ood'],
  sample: (db, uid, rng) => ({ order_id: pick(ordersOf(db, uid), rng) }),
  instruction: (p) => `What is the total price of the items in order ${p.order_id}?`,
  answer(db, p) {
    const total = (order(db, String(p.order_id)).items as Rec[]).reduce((s, it) => s + Number(it.price), 0);
    return { expected: Math.round(total * 100) / 100, match: 'numeric', tolerance: 0.01 };
  },
  *script(p) {
    const o = parseObs(yield call('get_order_details', { order_id: p.order_id }));
    if (!o) return answer(REFUSAL);
    const sum = yield call('calculate', { expression: (o.items as Rec[]).map((it) => String(it.price)).join(' + ') });
    return answer(sum.startsWith('Error:') ? REFUSAL : sum);
  },
};

export const FAMILIES: readonly Family[] = [
  orderStatus,
  itemPrice,
  userCity,
  orderCount,
  firstOrderStatus,
  cancelPending,
  cancelNotPending,
  changeAddress,
  productOrderStatus,
  shipOrderTo,
  orderTotal,
];

function uidOf(db: Db, p: Params): string {
  const u = Object.values(db.users as Rec).find((x) => {
    const r = x as Rec;
    const n = r.name as Rec;
    return n.first_name === p.first_name && n.last_name === p.last_name && (r.address as Rec).zip === p.zip;
  }) as Rec | undefined;
  if (!u) throw new Error(`no user ${p.first_name} ${p.last_name} ${p.zip}`);
  return String(u.user_id);
}
