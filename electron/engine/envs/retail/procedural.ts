/**
 * Procedural retail worlds: every task gets its own small DB — users, orders, products, payment
 * methods — drawn fresh from its seed, in tau2's record shapes so the same 16 tools run over it.
 *
 * Why: in a fixed world a small model memorises the few entities it trains on and answers an
 * unseen user with a memorised id. Here names, ids and addresses are syllables and digits from a
 * space far larger than any task set, so copying them from the context is the only strategy.
 *
 * Held-out is guaranteed new, not just probably new: every entity string belongs to one split by a
 * hash of its value (entityBucket), and a world of split S draws only strings of S's bucket. So no
 * id, name, address, e-mail or product of a heldout (or ood) world can occur in any training world.
 */
import { deepFreeze, type Db, type JsonObject } from '../tau2/db';
import type { JsonValue, Split } from '../types';
import { type Layout, variedRecord } from './layouts';
import { hashString, pick, seededRng, type Rng } from './world';

type Rec = JsonObject;

/** The split an entity string belongs to: 1 in 8 heldout, 1 in 8 ood, the rest train. */
export function entityBucket(value: string): Split {
  const h = hashString(`retail-entity|${value}`) % 8;
  return h === 0 ? 'heldout' : h === 1 ? 'ood' : 'train';
}

const SYLLABLES = ['ba', 'ko', 'ri', 'tu', 'me', 'sa', 'vo', 'li', 'da', 'ne', 'po', 'gu', 'fe', 'zi', 'ra', 'mo', 'ki', 'lu', 'te', 'no', 'ja', 've', 'si', 'ho'];
const STREET_KINDS = ['Street', 'Road', 'Lane', 'Avenue', 'Drive', 'Way'];
const STATES = ['TX', 'CO', 'OR', 'OH', 'AZ', 'MA', 'NY', 'CA', 'WA', 'IL'];
const PRODUCT_KINDS = ['Lamp', 'Kettle', 'Backpack', 'Jacket', 'Speaker', 'Watch', 'Blender', 'Mug', 'Tent', 'Helmet'];
const COLORS = ['red', 'blue', 'green', 'black', 'white'];
const STATUSES = ['pending', 'processed', 'delivered', 'cancelled'];

export const PROCEDURAL_MIN_USERS = 1;
/** Users beyond the target are distractors no look-up sees; past ~100 they only cost memory (every task keeps its world). */
export const PROCEDURAL_MAX_USERS = 100;

/** Draws entity strings of one split's bucket, never the same one twice in a world. */
class Namer {
  private readonly used = new Set<string>();

  constructor(
    readonly rng: Rng,
    private readonly split: Split,
  ) {}

  draw(make: () => string): string {
    // Expected 1/P(bucket) ≤ 8 draws; the bound only stops a broken generator from spinning.
    for (let i = 0; i < 10_000; i++) {
      const v = make();
      if (!this.used.has(v) && entityBucket(v) === this.split) {
        this.used.add(v);
        return v;
      }
    }
    throw new Error(`procedural retail: no fresh ${this.split} entity after 10000 draws`);
  }

  digits(n: number): string {
    return Array.from({ length: n }, () => String(Math.floor(this.rng() * 10))).join('');
  }

  word(min: number, max: number): string {
    const n = min + Math.floor(this.rng() * (max - min + 1));
    const w = Array.from({ length: n }, () => pick(SYLLABLES, this.rng)).join('');
    return w.charAt(0).toUpperCase() + w.slice(1);
  }

  address(): Rec {
    return {
      address1: this.draw(() => `${100 + Math.floor(this.rng() * 900)} ${this.word(2, 3)} ${pick(STREET_KINDS, this.rng)}`),
      address2: `Suite ${100 + Math.floor(this.rng() * 900)}`,
      city: this.draw(() => this.word(2, 3)),
      country: 'USA',
      state: pick(STATES, this.rng),
      zip: this.draw(() => this.digits(5)),
    };
  }
}

export interface ProceduralWorld {
  db: Db;
  userIds: string[];
  /** A new address of the world's split, for the write families that move someone somewhere. */
  freshAddress: () => Rec;
}

/** Long fields a varied record keeps at its end, so a capped observation still shows the short ones. */
const ORDER_TAIL = ['address', 'items', 'fulfillments', 'payment_history'];
const USER_TAIL = ['orders', 'email', 'payment_methods'];

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * The world of one task: `users` users (the target and its distractors), each with 1–3 orders of
 * 1–2 items over a handful of products. Record keys come in tau2's shapes, but the fields the
 * look-ups ask about (status, price, city, orders) come early, so a capped observation keeps them.
 */
export function proceduralWorld(seed: number, split: Split, users: number, layout: Layout = 'fixed'): ProceduralWorld {
  const rng = seededRng(seed);
  // Its own stream, so a varied world holds the very entities of the fixed one with the same seed.
  const lrng = seededRng(seed ^ 0x2c1b3c6d);
  const vary = (rec: Rec, last: readonly string[] = []): Rec => (layout === 'varied' ? variedRecord(rec, lrng, last) : rec);
  const names = new Namer(rng, split);
  const products: Record<string, Rec> = {};
  const variants: Rec[] = [];
  for (let p = 0; p < 4; p++) {
    const productId = names.draw(() => names.digits(10));
    const name = names.draw(() => `${names.word(2, 2)} ${pick(PRODUCT_KINDS, rng)}`);
    const vs: Record<string, Rec> = {};
    for (const color of COLORS.slice(0, 2 + Math.floor(rng() * 2))) {
      const itemId = names.draw(() => names.digits(10));
      vs[itemId] = vary({ item_id: itemId, price: round2(10 + rng() * 490), available: rng() < 0.85, options: { color } });
      variants.push({ name, product_id: productId, ...vs[itemId] });
    }
    products[productId] = { name, product_id: productId, variants: vs };
  }
  const usersTable: Record<string, Rec> = {};
  const ordersTable: Record<string, Rec> = {};
  for (let u = 0; u < users; u++) {
    const first = names.draw(() => names.word(2, 3));
    const last = names.draw(() => names.word(2, 3));
    const userId = names.draw(() => `${first}_${last}_${names.digits(4)}`.toLowerCase());
    const address = names.address();
    const userAddress = layout === 'varied' ? variedRecord(address, lrng, [], false) : address;
    const card = names.draw(() => `credit_card_${names.digits(7)}`);
    const gift = names.draw(() => `gift_card_${names.digits(7)}`);
    const payment_methods: Rec = {
      [card]: { source: 'credit_card', id: card, brand: pick(['visa', 'mastercard'], rng), last_four: names.digits(4) },
      [gift]: { source: 'gift_card', id: gift, balance: round2(rng() * 200) },
    };
    const orderIds: string[] = [];
    for (let o = 0, n = 1 + Math.floor(rng() * 3); o < n; o++) {
      const orderId = names.draw(() => `#W${names.digits(7)}`);
      const items = Array.from({ length: 1 + Math.floor(rng() * 2) }, () => {
        const v = pick(variants, rng);
        return { name: v.name, item_id: v.item_id, price: v.price, product_id: v.product_id, options: v.options } as Rec;
      });
      const status = pick(STATUSES, rng);
      const payer = pick([card, gift], rng);
      ordersTable[orderId] = vary({
        order_id: orderId,
        user_id: userId,
        status,
        items,
        address: { ...address },
        fulfillments:
          status === 'pending' || status === 'cancelled' ? [] : [{ tracking_id: [names.draw(() => names.digits(12))], item_ids: items.map((i) => i.item_id) }],
        payment_history: [{ transaction_type: 'payment', amount: round2(items.reduce((s, i) => s + Number(i.price), 0)), payment_method_id: payer }],
        ...(status === 'cancelled' ? { cancel_reason: 'no longer needed' } : {}),
      }, ORDER_TAIL);
      orderIds.push(orderId);
    }
    usersTable[userId] = vary({
      user_id: userId,
      name: { first_name: first, last_name: last },
      address: userAddress,
      orders: orderIds,
      email: names.draw(() => `${first}.${last}${names.digits(4)}@example.com`.toLowerCase()),
      payment_methods,
    }, USER_TAIL);
  }
  const db = deepFreeze({ users: usersTable, orders: ordersTable, products } as { [k: string]: JsonValue }) as Db;
  return { db, userIds: Object.keys(usersTable), freshAddress: () => names.address() };
}
