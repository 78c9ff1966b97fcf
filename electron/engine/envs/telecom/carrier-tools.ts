/**
 * The agent's 13 carrier tools, written from their schemas and the telecom policy. Every write
 * checks that the customer owns the line or bill, so a wrong id is refused, never applied to
 * someone else's account.
 */
import { ownRecord, writableRecord, type Db, type JsonObject } from '../tau2/db';
import { roundCents, ToolError, type ToolArgs, type ToolImpl } from '../tau2/tools';
import type { JsonValue } from '../types';
import { CARRIER_TABLES } from './data';
import { writableSituation } from './device';

/** "The current time is 2025-02-25 12:08:00 EST" (policy); dates written by tools use it. */
export const TODAY = '2025-02-25';
/** End of the billing cycle TODAY falls in. */
export const CYCLE_END = '2025-02-28';
export const AWAITING_PAYMENT = 'Awaiting Payment';

const str = (args: ToolArgs, key: string): string => String(args[key]);

export function customer(db: Db, id: string): JsonObject {
  const c = ownRecord(db.customers, id);
  if (!c) throw new ToolError(`Customer with ID ${id} not found`);
  return c;
}

/** The line, after checking it exists and belongs to the customer. */
export function ownedLine(db: Db, customerId: string, lineId: string): JsonObject {
  const c = customer(db, customerId);
  const line = ownRecord(db.lines, lineId);
  if (!line) throw new ToolError(`Line with ID ${lineId} not found`);
  if (!(c.line_ids as JsonValue[]).includes(lineId)) throw new ToolError(`Line ${lineId} does not belong to customer ${customerId}`);
  return line;
}

function plan(db: Db, planId: string): JsonObject {
  const p = ownRecord(db.plans, planId);
  if (!p) throw new ToolError(`Plan with ID ${planId} not found`);
  return p;
}

function billsOf(db: Db, customerId: string): JsonObject[] {
  return Object.values(db.bills as JsonObject)
    .map((b) => b as JsonObject)
    .filter((b) => b.customer_id === customerId)
    .sort((a, b) => String(b.issue_date).localeCompare(String(a.issue_date)));
}

export const CARRIER_TOOLS: Record<string, ToolImpl> = {
  get_customer_by_phone(db, args) {
    const number = str(args, 'phone_number');
    const hit = Object.values(db.customers as JsonObject).find((c) => {
      const cust = c as JsonObject;
      return cust.phone_number === number || (cust.line_ids as string[]).some((id) => ownRecord(db.lines, id)?.phone_number === number);
    });
    if (!hit) throw new ToolError(`Customer with phone number ${number} not found`);
    return hit;
  },
  get_customer_by_id(db, args) {
    return customer(db, str(args, 'customer_id'));
  },
  get_customer_by_name(db, args) {
    const name = str(args, 'full_name').trim().toLowerCase();
    const dob = str(args, 'dob').trim();
    return Object.values(db.customers as JsonObject).filter((c) => {
      const cust = c as JsonObject;
      return String(cust.full_name).toLowerCase() === name && cust.date_of_birth === dob;
    });
  },
  get_details_by_id(db, args) {
    const id = str(args, 'id');
    for (const table of Object.keys(CARRIER_TABLES)) {
      const rec = ownRecord(db[table], id);
      if (rec) return rec;
    }
    throw new ToolError(`No customer, line, device, bill or plan with ID ${id}`);
  },
  suspend_line(db, args) {
    const lineId = str(args, 'line_id');
    if (ownedLine(db, str(args, 'customer_id'), lineId).status !== 'Active') throw new ToolError(`Line ${lineId} is not active`);
    const line = writableRecord(db, 'lines', lineId);
    line.status = 'Suspended';
    line.suspension_start_date = TODAY;
    return { message: `Line ${lineId} suspended (reason: ${str(args, 'reason')})`, line };
  },
  resume_line(db, args) {
    const lineId = str(args, 'line_id');
    const status = ownedLine(db, str(args, 'customer_id'), lineId).status;
    if (status !== 'Suspended' && status !== 'Pending Activation') throw new ToolError(`Line ${lineId} is ${status}, not suspended`);
    const line = writableRecord(db, 'lines', lineId);
    line.status = 'Active';
    delete line.suspension_start_date;
    return { message: `Line ${lineId} resumed`, line };
  },
  get_bills_for_customer(db, args) {
    const customerId = str(args, 'customer_id');
    customer(db, customerId);
    const limit = args.limit === undefined ? 12 : Number(args.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new ToolError('limit must be a positive integer');
    return billsOf(db, customerId).slice(0, limit);
  },
  send_payment_request(db, args) {
    const customerId = str(args, 'customer_id');
    const billId = str(args, 'bill_id');
    customer(db, customerId);
    const bill = ownRecord(db.bills, billId);
    if (!bill || bill.customer_id !== customerId) throw new ToolError(`Bill ${billId} not found for customer ${customerId}`);
    if (billsOf(db, customerId).some((b) => b.status === AWAITING_PAYMENT))
      throw new ToolError(`Customer ${customerId} already has a bill awaiting payment`);
    writableRecord(db, 'bills', billId).status = AWAITING_PAYMENT;
    const situation = writableSituation(db);
    (situation.payment_requests as JsonValue[]).push({ bill_id: billId, amount_due: bill.total_due, paid: false });
    return `Payment request sent to customer ${customerId} for bill ${billId} (${bill.total_due})`;
  },
  get_data_usage(db, args) {
    const line = ownedLine(db, str(args, 'customer_id'), str(args, 'line_id'));
    return {
      line_id: line.line_id,
      data_used_gb: line.data_used_gb,
      data_limit_gb: plan(db, String(line.plan_id)).data_limit_gb,
      data_refueling_gb: line.data_refueling_gb,
      cycle_end_date: CYCLE_END,
    };
  },
  enable_roaming(db, args) {
    return setRoaming(db, args, true);
  },
  disable_roaming(db, args) {
    return setRoaming(db, args, false);
  },
  transfer_to_human_agents() {
    return 'Transfer successful';
  },
  refuel_data(db, args) {
    const customerId = str(args, 'customer_id');
    const lineId = str(args, 'line_id');
    const current = ownedLine(db, customerId, lineId);
    if (current.status !== 'Active') throw new ToolError(`Line ${lineId} is not active`);
    const gb = Number(args.gb_amount);
    if (!(gb > 0)) throw new ToolError('gb_amount must be positive');
    const charge = roundCents(gb * Number(plan(db, String(current.plan_id)).data_refueling_price_per_gb));
    const line = writableRecord(db, 'lines', lineId);
    line.data_refueling_gb = Number(line.data_refueling_gb ?? 0) + gb;
    chargeOpenBill(db, customerId, {
      description: `Data refueling ${gb} GB - Line ${line.phone_number}`,
      amount: charge,
      date: TODAY,
      item_type: 'Data Refueling',
    });
    return { message: `Refuelled ${gb} GB on line ${lineId}`, new_data_refueling_gb: line.data_refueling_gb, charge };
  },
};

function setRoaming(db: Db, args: ToolArgs, on: boolean): JsonValue {
  const lineId = str(args, 'line_id');
  if (ownedLine(db, str(args, 'customer_id'), lineId).roaming_enabled === on)
    return `Roaming was already ${on ? 'enabled' : 'disabled'} on line ${lineId}`;
  writableRecord(db, 'lines', lineId).roaming_enabled = on;
  return `Roaming ${on ? 'enabled' : 'disabled'} on line ${lineId}`;
}

/** Add a charge to the customer's open (Draft) bill, the one for the current cycle, if any. */
function chargeOpenBill(db: Db, customerId: string, item: JsonObject): void {
  const open = billsOf(db, customerId).find((b) => b.status === 'Draft');
  if (!open) return;
  const bill = writableRecord(db, 'bills', String(open.bill_id));
  if (Array.isArray(bill.line_items)) bill.line_items.push(item);
  else bill.line_items = [item];
  bill.total_due = roundCents(Number(bill.total_due) + Number(item.amount));
}
