import { describe, expect, it } from 'vitest';
import { dataPath } from '../../../../electron/engine/envs/data-dir';
import { calculate } from '../../../../electron/engine/envs/retail/calculator';
import { RETAIL_TOOLS } from '../../../../electron/engine/envs/retail/tools';
import { dbHash, forkDb, loadFrozenDb, type Db, type JsonObject } from '../../../../electron/engine/envs/tau2/db';
import { executeCall, loadTau2ToolSpecs } from '../../../../electron/engine/envs/tau2/tools';
import type { JsonValue } from '../../../../electron/engine/envs/types';

type Rec = JsonObject;
const base = loadFrozenDb(dataPath('tau2-bench', 'domains', 'retail', 'db.json'));
const specs = loadTau2ToolSpecs('retail');
const orders = Object.values(base.orders as Rec) as Rec[];
const userOf = (o: Rec): Rec => (base.users as Rec)[String(o.user_id)] as Rec;
const firstPayment = (o: Rec): string => String(((o.payment_history as Rec[])[0] as Rec).payment_method_id);

function run(db: Db, name: string, args: { [k: string]: JsonValue }): string {
  return executeCall(RETAIL_TOOLS, specs, db, { name, arguments: args }).observation;
}
const json = (s: string): Rec => JSON.parse(s) as Rec;

/** An order with the given status whose first item has another available variant of its product. */
function orderWithAlternative(status: string): { o: Rec; oldId: string; newId: string; diff: number; rawDiff: number } {
  for (const o of orders) {
    if (o.status !== status) continue;
    const item = (o.items as Rec[])[0];
    const variants = ((base.products as Rec)[String(item.product_id)] as Rec).variants as Rec;
    const alt = Object.values(variants).find((v) => (v as Rec).item_id !== item.item_id && (v as Rec).available === true) as Rec | undefined;
    if (!alt) continue;
    // tau2 rounds an exchange's price difference, not a modification's (rawDiff).
    const rawDiff = Number(alt.price) - Number(item.price);
    return { o, oldId: String(item.item_id), newId: String(alt.item_id), diff: Math.round(rawDiff * 100) / 100, rawDiff };
  }
  throw new Error(`no ${status} order with an alternative item`);
}

describe('retail tools', () => {
  it('has the 16 tau2 retail tools, each implemented', () => {
    expect(specs.length).toBe(16);
    expect(specs.map((s) => s.name).filter((n) => !RETAIL_TOOLS[n])).toEqual([]);
  });

  it('cancel_pending_order: status, reason, refunds; gift cards are credited at once', () => {
    const o = orders.find((x) => x.status === 'pending' && firstPayment(x).startsWith('gift_card')) as Rec;
    const pmId = firstPayment(o);
    const before = Number(((userOf(o).payment_methods as Rec)[pmId] as Rec).balance);
    const paid = Number(((o.payment_history as Rec[])[0] as Rec).amount);
    const db = forkDb(base);
    const out = json(run(db, 'cancel_pending_order', { order_id: String(o.order_id), reason: 'no longer needed' }));
    expect(out.status).toBe('cancelled');
    expect(out.cancel_reason).toBe('no longer needed');
    expect((out.payment_history as Rec[]).at(-1)).toEqual({ transaction_type: 'refund', amount: paid, payment_method_id: pmId });
    const user = json(run(db, 'get_user_details', { user_id: String(o.user_id) }));
    expect(((user.payment_methods as Rec)[pmId] as Rec).balance).toBeCloseTo(before + paid, 2);
    // The shared DB is untouched.
    expect(((base.orders as Rec)[String(o.order_id)] as Rec).status).toBe('pending');
  });

  it('cancel_pending_order refuses non-pending orders, bad reasons and unknown orders', () => {
    const db = forkDb(base);
    const delivered = orders.find((x) => x.status === 'delivered') as Rec;
    const pending = orders.find((x) => x.status === 'pending') as Rec;
    expect(run(db, 'cancel_pending_order', { order_id: String(delivered.order_id), reason: 'no longer needed' })).toBe(
      'Error: Non-pending order cannot be cancelled',
    );
    expect(run(db, 'cancel_pending_order', { order_id: String(pending.order_id), reason: 'too expensive' })).toBe('Error: Invalid reason');
    expect(run(db, 'cancel_pending_order', { order_id: '#W0000000', reason: 'no longer needed' })).toBe('Error: Order not found');
    expect(dbHash(db)).toBe(dbHash(forkDb(base)));
  });

  it('modify_pending_order_address changes only pending orders', () => {
    const db = forkDb(base);
    const addr = { address1: '1 Main St', address2: 'Apt 2', city: 'Austin', state: 'TX', country: 'USA', zip: '78701' };
    const pending = orders.find((x) => x.status === 'pending') as Rec;
    expect(json(run(db, 'modify_pending_order_address', { order_id: String(pending.order_id), ...addr })).address).toEqual(addr);
    const processed = orders.find((x) => x.status === 'processed') as Rec;
    expect(run(db, 'modify_pending_order_address', { order_id: String(processed.order_id), ...addr })).toBe(
      'Error: Non-pending order cannot be modified',
    );
  });

  it('modify_pending_order_items swaps the item, records the price difference, and forbids the same item', () => {
    const { o, oldId, newId, rawDiff: diff } = orderWithAlternative('pending');
    const pmId = Object.keys(userOf(o).payment_methods as Rec).find((k) => !k.startsWith('gift_card')) ?? firstPayment(o);
    const db = forkDb(base);
    expect(
      run(db, 'modify_pending_order_items', { order_id: String(o.order_id), item_ids: [oldId], new_item_ids: [oldId], payment_method_id: pmId }),
    ).toBe('Error: The new item id should be different from the old item id');
    const out = json(
      run(db, 'modify_pending_order_items', { order_id: String(o.order_id), item_ids: [oldId], new_item_ids: [newId], payment_method_id: pmId }),
    );
    expect(out.status).toBe('pending (item modified)');
    expect((out.items as Rec[]).map((i) => i.item_id)).toContain(newId);
    expect((out.payment_history as Rec[]).at(-1)).toEqual({
      transaction_type: diff > 0 ? 'payment' : 'refund',
      amount: Math.abs(diff),
      payment_method_id: pmId,
    });
    expect(
      run(db, 'modify_pending_order_items', { order_id: String(o.order_id), item_ids: [newId], new_item_ids: [oldId], payment_method_id: pmId }),
    ).toBe('Error: Non-pending order cannot be modified');
  });

  it('modify_pending_order_payment moves the payment and refunds the old method', () => {
    const o = orders.find(
      (x) =>
        x.status === 'pending' &&
        (x.payment_history as Rec[]).length === 1 &&
        Object.keys(userOf(x).payment_methods as Rec).some((k) => k !== firstPayment(x) && !k.startsWith('gift_card')),
    ) as Rec;
    const oldId = firstPayment(o);
    const newId = Object.keys(userOf(o).payment_methods as Rec).find((k) => k !== oldId && !k.startsWith('gift_card')) as string;
    const amount = Number(((o.payment_history as Rec[])[0] as Rec).amount);
    const db = forkDb(base);
    expect(run(db, 'modify_pending_order_payment', { order_id: String(o.order_id), payment_method_id: oldId })).toBe(
      'Error: The new payment method should be different from the current one',
    );
    expect(run(db, 'modify_pending_order_payment', { order_id: String(o.order_id), payment_method_id: 'paypal_0000000' })).toBe(
      'Error: Payment method not found',
    );
    const out = json(run(db, 'modify_pending_order_payment', { order_id: String(o.order_id), payment_method_id: newId }));
    expect((out.payment_history as Rec[]).slice(1)).toEqual([
      { transaction_type: 'payment', amount, payment_method_id: newId },
      { transaction_type: 'refund', amount, payment_method_id: oldId },
    ]);
  });

  it('return_delivered_order_items: original method or a gift card only, items must be in the order', () => {
    const o = orders.find(
      (x) =>
        x.status === 'delivered' && Object.keys(userOf(x).payment_methods as Rec).some((k) => k !== firstPayment(x) && !k.startsWith('gift_card')),
    ) as Rec;
    const other = Object.keys(userOf(o).payment_methods as Rec).find((k) => k !== firstPayment(o) && !k.startsWith('gift_card')) as string;
    const items = (o.items as Rec[]).map((i) => String(i.item_id));
    const db = forkDb(base);
    expect(run(db, 'return_delivered_order_items', { order_id: String(o.order_id), item_ids: items, payment_method_id: other })).toBe(
      'Error: Payment method should be the original payment method',
    );
    expect(run(db, 'return_delivered_order_items', { order_id: String(o.order_id), item_ids: ['0'], payment_method_id: firstPayment(o) })).toBe(
      'Error: Some item not found',
    );
    const out = json(
      run(db, 'return_delivered_order_items', { order_id: String(o.order_id), item_ids: [...items].reverse(), payment_method_id: firstPayment(o) }),
    );
    expect(out.status).toBe('return requested');
    expect(out.return_items).toEqual([...items].sort());
  });

  it('exchange_delivered_order_items records the exchange and its price difference', () => {
    const { o, oldId, newId, diff } = orderWithAlternative('delivered');
    const pmId = Object.keys(userOf(o).payment_methods as Rec).find((k) => !k.startsWith('gift_card')) ?? firstPayment(o);
    const db = forkDb(base);
    const out = json(
      run(db, 'exchange_delivered_order_items', { order_id: String(o.order_id), item_ids: [oldId], new_item_ids: [newId], payment_method_id: pmId }),
    );
    expect(out).toMatchObject({
      status: 'exchange requested',
      exchange_items: [oldId],
      exchange_new_items: [newId],
      exchange_payment_method_id: pmId,
    });
    expect(out.exchange_price_difference).toBeCloseTo(diff, 2);
    const pending = orderWithAlternative('pending');
    expect(
      run(db, 'exchange_delivered_order_items', {
        order_id: String(pending.o.order_id),
        item_ids: [pending.oldId],
        new_item_ids: [pending.newId],
        payment_method_id: pmId,
      }),
    ).toBe('Error: Non-delivered order cannot be exchanged');
  });

  it('look-ups: users by name+zip (case-insensitive) or email, items, product types', () => {
    const db = forkDb(base);
    const u = Object.values(base.users as Rec)[0] as Rec;
    const name = u.name as Rec;
    expect(
      run(db, 'find_user_id_by_name_zip', {
        first_name: String(name.first_name).toUpperCase(),
        last_name: String(name.last_name),
        zip: String((u.address as Rec).zip),
      }),
    ).toBe(u.user_id);
    expect(run(db, 'find_user_id_by_email', { email: String(u.email) })).toBe(u.user_id);
    expect(run(db, 'find_user_id_by_email', { email: 'nobody@example.com' })).toBe('Error: User not found');
    expect(run(db, 'get_item_details', { item_id: 'nope' })).toBe('Error: Item not found');
    const types = json(run(db, 'list_all_product_types', {}));
    expect(Object.keys(types).length).toBe(50);
    expect(Object.keys(types)).toEqual([...Object.keys(types)].sort());
    expect(run(db, 'transfer_to_human_agents', { summary: 'x' })).toBe('Transfer successful');
  });

  it('calculate: arithmetic with precedence, rounding to cents, refusals', () => {
    expect(calculate('2 + 3 * (4 - 1) / 2')).toBe(6.5);
    expect(calculate('-(1.5 + .5) * 2')).toBe(-4);
    const db = forkDb(base);
    expect(run(db, 'calculate', { expression: '10 / 3' })).toBe('3.33');
    expect(run(db, 'calculate', { expression: 'import os' })).toBe('Error: Invalid characters in expression');
    expect(run(db, 'calculate', { expression: '1 / 0' })).toBe('Error: division by zero');
    // Python's messages (tau2 evals the expression); tau2/retail-rules.test.ts has the rest.
    expect(run(db, 'calculate', { expression: '(1 + 2' })).toBe("Error: '(' was never closed (<string>, line 1)");
    expect(run(db, 'calculate', { expression: '('.repeat(400) })).toBe("Error: '(' was never closed (<string>, line 1)");
    expect(run(db, 'calculate', { expression: `${'('.repeat(200)}1${')'.repeat(200)}` })).toBe('Error: Expression too deeply nested');
  });

  it('hostile ids read as "not found", never as Object.prototype members', () => {
    const db = forkDb(base);
    for (const id of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      expect(run(db, 'get_order_details', { order_id: id })).toBe('Error: Order not found');
      expect(run(db, 'get_user_details', { user_id: id })).toBe('Error: User not found');
      expect(run(db, 'get_product_details', { product_id: id })).toBe('Error: Product not found');
      expect(run(db, 'get_item_details', { item_id: id })).toBe('Error: Item not found');
      expect(run(db, 'cancel_pending_order', { order_id: id, reason: 'no longer needed' })).toBe('Error: Order not found');
    }
    const pending = orders.find((x) => x.status === 'pending') as Rec;
    expect(run(db, 'modify_pending_order_payment', { order_id: String(pending.order_id), payment_method_id: '__proto__' })).toBe('Error: Payment method not found');
    expect(dbHash(db)).toBe(dbHash(forkDb(base)));
  });

  it('random well-typed calls never throw and always answer with text (fuzz, seeded)', () => {
    let seed = 7;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
    const orderIds = orders.slice(0, 30).map((o) => String(o.order_id));
    const itemIds = orders.slice(0, 30).flatMap((o) => (o.items as Rec[]).map((i) => String(i.item_id)));
    const pmIds = orders.slice(0, 30).flatMap((o) => Object.keys(userOf(o).payment_methods as Rec));
    const strings = [...orderIds, ...itemIds, ...pmIds, '', '#W', 'no longer needed', 'ordered by mistake', '1 + 2', '__proto__', 'x'.repeat(300)];
    const value = (schema: Rec): JsonValue => {
      if (schema.type === 'array') return Array.from({ length: Math.floor(rand() * 4) }, () => strings[Math.floor(rand() * strings.length)]);
      return strings[Math.floor(rand() * strings.length)];
    };
    let db = forkDb(base);
    for (let i = 0; i < 3000; i++) {
      if (i % 60 === 0) db = forkDb(base);
      const spec = specs[Math.floor(rand() * specs.length)];
      const props = (spec.parameters.properties ?? {}) as Record<string, Rec>;
      const args = Object.fromEntries(Object.entries(props).map(([k, sch]) => [k, value(sch)]));
      const out = executeCall(RETAIL_TOOLS, specs, db, { name: spec.name, arguments: args });
      expect(typeof out.observation).toBe('string');
      expect(out.observation).not.toMatch(/internal tool failure/);
    }
  });

  it('the shared DB is frozen: writing to it without forking throws', () => {
    expect(() => {
      ((base.orders as Rec)[String(orders[0].order_id)] as Rec).status = 'x';
    }).toThrow(TypeError);
  });
});
