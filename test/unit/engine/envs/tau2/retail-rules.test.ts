/**
 * tau2 retail rules as tau2's RetailTools and evaluator have them, on a hand-built DB so every
 * balance and amount below is the figure tau2 itself computes (checked against upstream's
 * Python: src/tau2/domains/retail/tools.py, src/tau2/evaluator/).
 */
import { describe, expect, it } from 'vitest';
import { RETAIL_TOOLS } from '../../../../../electron/engine/envs/retail/tools';
import { deepFreeze, dbHash, forkDb, type Db, type JsonObject } from '../../../../../electron/engine/envs/tau2/db';
import { tau2Check, uncheckedParts } from '../../../../../electron/engine/envs/tau2/evaluate';
import { criteriaOf } from '../../../../../electron/engine/envs/tau2/task-file';
import { executeCall, loadTau2ToolSpecs } from '../../../../../electron/engine/envs/tau2/tools';
import type { JsonValue } from '../../../../../electron/engine/envs/types';

type Rec = JsonObject;
const specs = loadTau2ToolSpecs('retail');

const variant = (item_id: string, price: number, options: Rec, available = true): Rec => ({ item_id, price, options, available });
const item = (item_id: string, product_id: string, price: number, options: Rec): Rec => ({ name: product_id, product_id, item_id, price, options });
const addr = { address1: '1 Elm St', address2: '', city: 'Austin', state: 'TX', country: 'USA', zip: '78701' };
const pay = (amount: number, payment_method_id: string): Rec => ({ transaction_type: 'payment', amount, payment_method_id });

const BASE: Db = deepFreeze({
  products: {
    P1: { name: 'Lamp', product_id: 'P1', variants: { i1: variant('i1', 10.1, { color: 'red' }), i2: variant('i2', 10.3, { color: 'blue' }), i3: variant('i3', 20, { color: 'green' }, false) } },
    P2: { name: 'Cup', product_id: 'P2', variants: { j1: variant('j1', 0.1, { size: 'S' }), j2: variant('j2', 0.3, { size: 'L' }) } },
  },
  users: {
    u1: {
      user_id: 'u1',
      name: { first_name: 'Ada', last_name: 'Lee' },
      address: addr,
      email: 'ada@example.com',
      payment_methods: {
        gift_card_1: { source: 'gift_card', id: 'gift_card_1', balance: 50 },
        credit_card_1: { source: 'credit_card', id: 'credit_card_1', brand: 'visa', last_four: '1234' },
      },
      orders: ['#W1', '#W2', '#W3'],
    },
  },
  orders: {
    '#W1': {
      order_id: '#W1', user_id: 'u1', address: addr, status: 'pending', fulfillments: [],
      items: [item('i1', 'P1', 10.1, { color: 'red' }), item('j1', 'P2', 0.1, { size: 'S' })],
      payment_history: [pay(10.2, 'gift_card_1')],
    },
    '#W2': {
      order_id: '#W2', user_id: 'u1', address: addr, status: 'delivered', fulfillments: [],
      items: [item('i1', 'P1', 10.1, { color: 'red' }), item('j1', 'P2', 0.1, { size: 'S' })],
      payment_history: [pay(10.2, 'credit_card_1')],
    },
    '#W3': {
      order_id: '#W3', user_id: 'u1', address: addr, status: 'pending', fulfillments: [],
      items: [item('i1', 'P1', 30.5, { color: 'red' })],
      payment_history: [pay(30.5, 'gift_card_1')],
    },
  },
});

function world(): { db: Db; run: (name: string, args: { [k: string]: JsonValue }) => string; order: (id: string) => Rec; giftBalance: () => number } {
  const db = forkDb(BASE);
  return {
    db,
    run: (name, args) => executeCall(RETAIL_TOOLS, specs, db, { name, arguments: args }).observation,
    order: (id) => (db.orders as Rec)[id] as Rec,
    giftBalance: () => Number(((((db.users as Rec).u1 as Rec).payment_methods as Rec).gift_card_1 as Rec).balance),
  };
}
const ok = (s: string): void => expect(s.startsWith('Error:'), s).toBe(false);

describe('tau2 retail: pending means "pending" in the status (tau2 _is_pending_order)', () => {
  it('modify items, then the address of the same `pending (item modified)` order; payment is refused for its history, cancel for its status', () => {
    const w = world();
    ok(w.run('modify_pending_order_items', { order_id: '#W1', item_ids: ['i1'], new_item_ids: ['i2'], payment_method_id: 'credit_card_1' }));
    expect(w.order('#W1').status).toBe('pending (item modified)');
    ok(w.run('modify_pending_order_address', { order_id: '#W1', ...addr, address1: '9 Oak Ave' }));
    expect((w.order('#W1').address as Rec).address1).toBe('9 Oak Ave');
    // Past the status check, tau2 refuses because the history now holds the price difference too.
    expect(w.run('modify_pending_order_payment', { order_id: '#W1', payment_method_id: 'credit_card_1' })).toBe(
      'Error: There should be exactly one payment for a pending order',
    );
    // Cancelling and modifying items again keep tau2's strict status == "pending".
    expect(w.run('cancel_pending_order', { order_id: '#W1', reason: 'no longer needed' })).toBe('Error: Non-pending order cannot be cancelled');
    expect(w.run('modify_pending_order_items', { order_id: '#W1', item_ids: ['i2'], new_item_ids: ['i1'], payment_method_id: 'credit_card_1' })).toBe(
      'Error: Non-pending order cannot be modified',
    );
  });
});

describe('tau2 retail: cancel refunds every payment-history entry (tau2 cancel_pending_order)', () => {
  it('after a payment change the old gift card is refunded twice, as tau2 computes it', () => {
    const w = world();
    ok(w.run('modify_pending_order_payment', { order_id: '#W3', payment_method_id: 'credit_card_1' }));
    expect(w.giftBalance()).toBe(80.5); // 50 + the 30.5 refunded by the payment change
    ok(w.run('cancel_pending_order', { order_id: '#W3', reason: 'ordered by mistake' }));
    expect(w.order('#W3').payment_history).toEqual([
      pay(30.5, 'gift_card_1'),
      pay(30.5, 'credit_card_1'),
      { transaction_type: 'refund', amount: 30.5, payment_method_id: 'gift_card_1' },
      { transaction_type: 'refund', amount: 30.5, payment_method_id: 'gift_card_1' },
      { transaction_type: 'refund', amount: 30.5, payment_method_id: 'credit_card_1' },
      { transaction_type: 'refund', amount: 30.5, payment_method_id: 'gift_card_1' },
    ]);
    expect(w.giftBalance()).toBe(141.5); // + 30.5 for each of the two gift-card entries
    expect(w.order('#W3').status).toBe('cancelled');
  });
});

describe('tau2 retail: price differences, rounding and item updates (tau2 modify / exchange)', () => {
  it('modify records the unrounded difference, rounds only the balance, and gives every item the last variant', () => {
    const w = world();
    ok(w.run('modify_pending_order_items', { order_id: '#W1', item_ids: ['i1', 'j1'], new_item_ids: ['i2', 'j2'], payment_method_id: 'gift_card_1' }));
    const o = w.order('#W1');
    expect((o.payment_history as Rec[]).at(-1)).toEqual(pay(0.400000000000001, 'gift_card_1'));
    expect(w.giftBalance()).toBe(49.6);
    // tau2 assigns price and options from its loop's last variant to each replaced item.
    expect(o.items).toEqual([item('i2', 'P1', 0.3, { size: 'L' }), item('j2', 'P2', 0.3, { size: 'L' })]);
    // An exchange of the same pairs rounds its difference.
    ok(w.run('exchange_delivered_order_items', { order_id: '#W2', item_ids: ['j1', 'i1'], new_item_ids: ['j2', 'i2'], payment_method_id: 'credit_card_1' }));
    expect(w.order('#W2')).toMatchObject({ status: 'exchange requested', exchange_price_difference: 0.4, exchange_items: ['i1', 'j1'], exchange_new_items: ['i2', 'j2'] });
  });

  it('refuses with tau2 error strings, in tau2 order', () => {
    const w = world();
    const ex = (item_ids: string[], new_item_ids: string[]): string =>
      w.run('exchange_delivered_order_items', { order_id: '#W2', item_ids, new_item_ids, payment_method_id: 'credit_card_1' });
    const mod = (item_ids: string[], new_item_ids: string[]): string =>
      w.run('modify_pending_order_items', { order_id: '#W1', item_ids, new_item_ids, payment_method_id: 'credit_card_1' });
    expect(ex(['i1', 'i1'], ['i2', 'i2'])).toBe('Error: Number of i1 not found.');
    expect(ex(['i1'], ['i2', 'j2'])).toBe('Error: The number of items to be exchanged should match.');
    expect(ex(['i1'], ['zz'])).toBe('Error: Variant not found');
    expect(ex(['i1'], ['i3'])).toBe('Error: New item i3 not found or available');
    expect(mod(['i1', 'i1'], ['i2', 'i2'])).toBe('Error: i1 not found');
    expect(mod(['i1'], ['i2', 'j2'])).toBe('Error: The number of items to be exchanged should match');
    expect(mod(['i1'], ['i1'])).toBe('Error: The new item id should be different from the old item id');
    expect(mod(['j1'], ['i2'])).toBe('Error: Variant not found');
    expect(dbHash(w.db)).toBe(dbHash(forkDb(BASE)));
  });
});

describe("tau2 retail: calculate is Python's str(round(float(eval(x)), 2))", () => {
  it('answers as Python prints floats, rounds half-even on the exact value, knows ** and //', () => {
    const w = world();
    const calc = (expression: string): string => w.run('calculate', { expression });
    expect(calc('2 + 2')).toBe('4.0');
    expect(calc('10 / 3')).toBe('3.33');
    expect(calc('0.125')).toBe('0.12');
    expect(calc('0.375')).toBe('0.38');
    expect(calc('2 ** 3 ** 2')).toBe('512.0');
    expect(calc('-2 ** 2')).toBe('-4.0');
    expect(calc('2 ** -1')).toBe('0.5');
    expect(calc('7 // 2')).toBe('3.0');
    expect(calc('1 // 0.1')).toBe('9.0');
    expect(calc('10 ** 16')).toBe('1e+16');
    expect(calc('1 / 0')).toBe('Error: division by zero');
    expect(calc('1.0 / 0')).toBe('Error: float division by zero');
    expect(calc('1 // 0')).toBe('Error: integer division or modulo by zero');
    expect(calc('(1 + 2')).toBe("Error: '(' was never closed (<string>, line 1)");
    expect(calc('1 2')).toBe('Error: invalid syntax (<string>, line 1)');
    expect(calc('2(3)')).toBe("Error: 'int' object is not callable");
    expect(calc('import os')).toBe('Error: Invalid characters in expression');
  });
});

describe('tau2 evaluation: NL assertions and communicate_info (tau2 evaluator)', () => {
  const transcript = { calls: [], answer: 'Done.', messages: ['Done.'], formatErrors: 0 };
  const db = forkDb(BASE);
  const check = (rewardBasis: Array<'DB' | 'NL_ASSERTION' | 'COMMUNICATE'>, nlAssertions: string[]) =>
    tau2Check({ criteria: { rewardBasis, actions: [], communicate: [], nlAssertions }, finalDb: db, expectedHash: dbHash(db), transcript });

  it('NL assertions in the reward basis cannot be checked: the task is unchecked and never passes', () => {
    const r = check(['DB', 'NL_ASSERTION'], ['Agent refuses the refund']);
    expect(r.passed).toBe(false);
    expect(r.checks.find((c) => c.name === 'NL_ASSERTION')).toMatchObject({ passed: false, skipped: true });
    expect(uncheckedParts(r)).toEqual(['NL_ASSERTION']);
    // With no NL assertions the part passes (tau2 scores it 1); outside the basis they do not count.
    expect(check(['DB', 'NL_ASSERTION'], [])).toMatchObject({ passed: true });
    const outside = check(['DB'], ['Agent is polite']);
    expect(outside.passed).toBe(true);
    expect(uncheckedParts(outside)).toEqual([]);
  });

  it('communicate_info is part of a task only when its reward basis has COMMUNICATE', () => {
    const raw = (reward_basis: string[]) => ({ id: 'x', evaluation_criteria: { reward_basis, communicate_info: ['$12.50'], nl_assertions: [] } });
    expect(criteriaOf(raw(['DB', 'NL_ASSERTION'])).communicate).toEqual([]);
    expect(criteriaOf(raw(['DB', 'COMMUNICATE'])).communicate).toEqual(['$12.50']);
  });
});
