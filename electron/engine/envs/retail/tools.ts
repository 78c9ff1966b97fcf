/**
 * The 16 tau2 retail tools over the retail DB, written from the tool schemas and policy.md:
 * look-ups; cancel / modify (address, payment, items) of pending orders; return / exchange of
 * delivered orders; default-address change; transfer; a calculator. The rules follow tau2's
 * `RetailTools` (src/tau2/domains/retail/tools.py), checks in the same order, refusals as
 * ToolErrors with its wording ("Non-pending order cannot be cancelled", "Variant not found" …),
 * sums in float and rounded where, and only where, tau2 rounds (Python's round(x, 2)).
 * Writes copy the records they touch (writableRecord), so the shared DB is never changed.
 */
import { ownRecord, writableRecord, type Db, type JsonObject } from '../tau2/db';
import { pyRound2 } from '../tau2/py-number';
import { ToolError, type ToolArgs, type ToolImpl } from '../tau2/tools';
import type { JsonValue } from '../types';
import { calculateTool } from './calculator';

export const CANCEL_REASONS = ['no longer needed', 'ordered by mistake'];
export const RETAIL_WRITE_TOOLS = [
  'cancel_pending_order',
  'exchange_delivered_order_items',
  'modify_pending_order_address',
  'modify_pending_order_items',
  'modify_pending_order_payment',
  'modify_user_address',
  'return_delivered_order_items',
];

type Rec = JsonObject;
const tbl = (db: Db, t: string): Rec => db[t] as Rec;
const s = (args: ToolArgs, k: string): string => String(args[k]);
const list = (args: ToolArgs, k: string): string[] => (args[k] as JsonValue[]).map(String);

function order(db: Db, id: string): Rec {
  const o = ownRecord(db.orders, id);
  if (!o) throw new ToolError('Order not found');
  return o as Rec;
}

function user(db: Db, id: string): Rec {
  const u = ownRecord(db.users, id);
  if (!u) throw new ToolError('User not found');
  return u as Rec;
}

function product(db: Db, id: string): Rec {
  const p = ownRecord(db.products, id);
  if (!p) throw new ToolError('Product not found');
  return p as Rec;
}

function paymentMethod(u: Rec, id: string): Rec {
  const pm = ownRecord(u.payment_methods, id);
  if (!pm) throw new ToolError('Payment method not found');
  return pm as Rec;
}

/** tau2 tells a gift card by its type (`isinstance(..., GiftCard)`), i.e. its `source`, not by its id. */
const isGiftCard = (pm: Rec): boolean => pm.source === 'gift_card';

/**
 * tau2's `_is_pending_order`: "pending" in the status, so a `pending (item modified)` order may
 * still have its address or payment changed. Cancelling and modifying items keep the strict
 * `status == "pending"` test, as tau2 does.
 */
const isPending = (o: Rec): boolean => String(o.status).includes('pending');

/** Write access to an order and to its owner (for gift-card balances). */
function writableOrder(db: Db, id: string): { o: Rec; owner: () => Rec } {
  order(db, id);
  const o = writableRecord(db, 'orders', id);
  return { o, owner: () => writableRecord(db, 'users', String(o.user_id)) };
}

/** `balance += delta; balance = round(balance, 2)`, as every tau2 gift-card update does. */
function addGiftBalance(u: Rec, pmId: string, delta: number): void {
  const pm = (u.payment_methods as Rec)[pmId] as Rec;
  pm.balance = pyRound2(Number(pm.balance) + delta);
}

const ADDRESS_KEYS = ['address1', 'address2', 'city', 'state', 'country', 'zip'];
const addressOf = (args: ToolArgs): Rec => Object.fromEntries(ADDRESS_KEYS.map((k) => [k, s(args, k)]));

/** Check every item id is in the order as many times as listed. */
function checkItemsInOrder(o: Rec, itemIds: string[], missing: (id: string) => string): void {
  const have = new Map<string, number>();
  for (const it of o.items as Rec[]) have.set(String(it.item_id), (have.get(String(it.item_id)) ?? 0) + 1);
  for (const id of itemIds) {
    const n = have.get(id) ?? 0;
    if (n === 0) throw new ToolError(missing(id));
    have.set(id, n - 1);
  }
}

/**
 * tau2's pairing of old → new items (modify and exchange alike): counts must match, then each
 * new id must be a variant of the old item's product (`Variant not found`) and available.
 * Modifying a pending order to the very same item is refused; exchanging a delivered item for an
 * identical new one is allowed (a replacement). The difference is the plain float sum of
 * new − old prices; the caller rounds it or not, as tau2 does.
 */
function priceDifference(db: Db, o: Rec, itemIds: string[], newIds: string[], what: 'modified' | 'exchanged'): { diff: number; variants: Rec[] } {
  if (itemIds.length !== newIds.length)
    throw new ToolError(what === 'modified' ? 'The number of items to be exchanged should match' : 'The number of items to be exchanged should match.');
  let diff = 0;
  const variants: Rec[] = [];
  itemIds.forEach((oldId, k) => {
    if (what === 'modified' && newIds[k] === oldId) throw new ToolError('The new item id should be different from the old item id');
    const old = (o.items as Rec[]).find((it) => it.item_id === oldId) as Rec;
    const variant = ownRecord(product(db, String(old.product_id)).variants, newIds[k]);
    if (!variant) throw new ToolError('Variant not found');
    if (variant.available !== true) throw new ToolError(`New item ${newIds[k]} not found or available`);
    diff += Number(variant.price) - Number(old.price);
    variants.push(variant);
  });
  return { diff, variants };
}

export const RETAIL_TOOLS: Record<string, ToolImpl> = {
  calculate(_db, args) {
    return calculateTool(s(args, 'expression'));
  },

  cancel_pending_order(db, args) {
    const id = s(args, 'order_id');
    if (order(db, id).status !== 'pending') throw new ToolError('Non-pending order cannot be cancelled');
    const reason = s(args, 'reason');
    if (!CANCEL_REASONS.includes(reason)) throw new ToolError('Invalid reason');
    const { o, owner } = writableOrder(db, id);
    const refunds: Rec[] = [];
    // As tau2's cancel_pending_order: one refund per payment-history entry, whatever its type
    // (after a payment change that refunds the old method a second time). Gift cards are
    // credited at once; other methods in 5–7 business days (outside the DB).
    for (const p of o.payment_history as Rec[]) {
      const pmId = String(p.payment_method_id);
      refunds.push({ transaction_type: 'refund', amount: p.amount, payment_method_id: p.payment_method_id });
      if (isGiftCard(paymentMethod(user(db, String(o.user_id)), pmId))) addGiftBalance(owner(), pmId, Number(p.amount));
    }
    o.status = 'cancelled';
    o.cancel_reason = reason;
    (o.payment_history as Rec[]).push(...refunds);
    return o;
  },

  exchange_delivered_order_items(db, args) {
    const id = s(args, 'order_id');
    const cur = order(db, id);
    if (cur.status !== 'delivered') throw new ToolError('Non-delivered order cannot be exchanged');
    const itemIds = list(args, 'item_ids');
    const newIds = list(args, 'new_item_ids');
    checkItemsInOrder(cur, itemIds, (x) => `Number of ${x} not found.`);
    // tau2 rounds the exchange difference (not the modify one).
    const diff = pyRound2(priceDifference(db, cur, itemIds, newIds, 'exchanged').diff);
    const pmId = s(args, 'payment_method_id');
    const pm = paymentMethod(user(db, String(cur.user_id)), pmId);
    if (isGiftCard(pm) && Number(pm.balance) < diff) throw new ToolError('Insufficient gift card balance to pay for the price difference');
    const { o } = writableOrder(db, id);
    o.status = 'exchange requested';
    o.exchange_items = [...itemIds].sort();
    o.exchange_new_items = [...newIds].sort();
    o.exchange_payment_method_id = pmId;
    o.exchange_price_difference = diff;
    return o;
  },

  find_user_id_by_email(db, args) {
    const email = s(args, 'email').toLowerCase();
    const u = Object.values(tbl(db, 'users')).find((x) => String((x as Rec).email).toLowerCase() === email) as Rec | undefined;
    if (!u) throw new ToolError('User not found');
    return String(u.user_id);
  },

  find_user_id_by_name_zip(db, args) {
    const first = s(args, 'first_name').toLowerCase();
    const last = s(args, 'last_name').toLowerCase();
    const zip = s(args, 'zip');
    const u = Object.values(tbl(db, 'users')).find((x) => {
      const r = x as Rec;
      const name = r.name as Rec;
      return String(name.first_name).toLowerCase() === first && String(name.last_name).toLowerCase() === last && (r.address as Rec).zip === zip;
    }) as Rec | undefined;
    if (!u) throw new ToolError('User not found');
    return String(u.user_id);
  },

  get_order_details: (db, args) => order(db, s(args, 'order_id')),
  get_product_details: (db, args) => product(db, s(args, 'product_id')),
  get_user_details: (db, args) => user(db, s(args, 'user_id')),

  get_item_details(db, args) {
    const id = s(args, 'item_id');
    for (const p of Object.values(tbl(db, 'products'))) {
      const v = ownRecord((p as Rec).variants, id);
      if (v) return v;
    }
    throw new ToolError('Item not found');
  },

  list_all_product_types(db) {
    const pairs = Object.values(tbl(db, 'products')).map((p) => [String((p as Rec).name), String((p as Rec).product_id)] as const);
    return Object.fromEntries(pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  },

  modify_pending_order_address(db, args) {
    const id = s(args, 'order_id');
    if (!isPending(order(db, id))) throw new ToolError('Non-pending order cannot be modified');
    const { o } = writableOrder(db, id);
    o.address = addressOf(args);
    return o;
  },

  modify_pending_order_items(db, args) {
    const id = s(args, 'order_id');
    const cur = order(db, id);
    if (cur.status !== 'pending') throw new ToolError('Non-pending order cannot be modified');
    const itemIds = list(args, 'item_ids');
    const newIds = list(args, 'new_item_ids');
    checkItemsInOrder(cur, itemIds, (x) => `${x} not found`);
    const { diff, variants } = priceDifference(db, cur, itemIds, newIds, 'modified');
    const pmId = s(args, 'payment_method_id');
    const pm = paymentMethod(user(db, String(cur.user_id)), pmId);
    if (isGiftCard(pm) && Number(pm.balance) < diff) throw new ToolError('Insufficient gift card balance to pay for the new item');
    const { o, owner } = writableOrder(db, id);
    // tau2 records the unrounded difference here; only the gift-card balance is rounded.
    (o.payment_history as Rec[]).push({ transaction_type: diff > 0 ? 'payment' : 'refund', amount: Math.abs(diff), payment_method_id: pmId });
    if (isGiftCard(pm)) addGiftBalance(owner(), pmId, -diff);
    // As tau2's modify_pending_order_items: each old id is replaced in the first item that still
    // carries it, and every replaced item takes the price and options of the LAST new variant
    // (tau2 reuses the loop variable of its validation pass). Kept so end states match tau2's.
    const last = variants.at(-1);
    itemIds.forEach((oldId, k) => {
      const items = o.items as Rec[];
      const idx = items.findIndex((it) => it.item_id === oldId);
      items[idx] = { ...items[idx], item_id: newIds[k], price: last?.price ?? null, options: structuredClone(last?.options ?? null) };
    });
    o.status = 'pending (item modified)';
    return o;
  },

  modify_pending_order_payment(db, args) {
    const id = s(args, 'order_id');
    const cur = order(db, id);
    if (!isPending(cur)) throw new ToolError('Non-pending order cannot be modified');
    const pmId = s(args, 'payment_method_id');
    const pm = paymentMethod(user(db, String(cur.user_id)), pmId);
    const history = cur.payment_history as Rec[];
    if (history.length !== 1 || history[0].transaction_type !== 'payment')
      throw new ToolError('There should be exactly one payment for a pending order');
    const oldId = String(history[0].payment_method_id);
    if (oldId === pmId) throw new ToolError('The new payment method should be different from the current one');
    const amount = Number(history[0].amount);
    if (isGiftCard(pm) && Number(pm.balance) < amount) throw new ToolError('Insufficient gift card balance to pay for the order');
    const old = paymentMethod(user(db, String(cur.user_id)), oldId);
    const { o, owner } = writableOrder(db, id);
    (o.payment_history as Rec[]).push(
      { transaction_type: 'payment', amount, payment_method_id: pmId },
      { transaction_type: 'refund', amount, payment_method_id: oldId },
    );
    if (isGiftCard(pm)) addGiftBalance(owner(), pmId, -amount);
    if (isGiftCard(old)) addGiftBalance(owner(), oldId, amount);
    return o;
  },

  modify_user_address(db, args) {
    const id = s(args, 'user_id');
    user(db, id);
    const u = writableRecord(db, 'users', id);
    u.address = addressOf(args);
    return u;
  },

  return_delivered_order_items(db, args) {
    const id = s(args, 'order_id');
    const cur = order(db, id);
    if (cur.status !== 'delivered') throw new ToolError('Non-delivered order cannot be returned');
    const pmId = s(args, 'payment_method_id');
    const pm = paymentMethod(user(db, String(cur.user_id)), pmId);
    const original = String((cur.payment_history as Rec[])[0]?.payment_method_id);
    if (pmId !== original && !isGiftCard(pm)) throw new ToolError('Payment method should be the original payment method');
    const itemIds = list(args, 'item_ids');
    checkItemsInOrder(cur, itemIds, () => 'Some item not found');
    const { o } = writableOrder(db, id);
    o.status = 'return requested';
    o.return_items = [...itemIds].sort();
    o.return_payment_method_id = pmId;
    return o;
  },

  transfer_to_human_agents() {
    return 'Transfer successful';
  },
};
