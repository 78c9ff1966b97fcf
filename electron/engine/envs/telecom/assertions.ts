/**
 * The env assertions telecom tasks use (`evaluation_criteria.env_assertions`): each is a function
 * of the end state returning true/false, compared with the task's `assert_value`.
 */
import { ownRecord, type Db } from '../tau2/db';
import type { ToolArgs } from '../tau2/tools';
import { AWAITING_PAYMENT } from './carrier-tools';
import { measureSpeed, noDataReason, noMmsReason, phone } from './device';

export type Assertion = (db: Db, args: ToolArgs) => boolean;

export const TELECOM_ASSERTIONS: Record<string, Assertion> = {
  /** The phone's cellular registration: 'connected' or 'no_service'. */
  assert_service_status: (db, args) => phone(db).network_connection_status === args.expected_status,
  /** Mobile data works (switch on and connected) exactly when `expected_status` is true. */
  assert_mobile_data_status: (db, args) => (noDataReason(db) === null) === args.expected_status,
  /** The speed test reaches at least `expected_speed` Mbps and is described as `expected_desc`. */
  assert_internet_speed: (db, args) => {
    const speed = measureSpeed(db);
    if (!speed) return false;
    const minOk = args.expected_speed === undefined || args.expected_speed === null || speed.mbps >= Number(args.expected_speed);
    const descOk = args.expected_desc === undefined || args.expected_desc === null || speed.description === args.expected_desc;
    return minOk && descOk;
  },
  assert_can_send_mms: (db, args) => (noMmsReason(db) === null) === args.expected_status,
  assert_data_refueling_amount: (db, args) => {
    const line = ownRecord(db.lines, String(args.line_id));
    return line !== undefined && Math.abs(Number(line.data_refueling_gb) - Number(args.expected_amount)) < 1e-9;
  },
  /**
   * The bill is not left unpaid: absent (tasks without a suspension ask this too), or in any
   * state but Overdue and Awaiting Payment (a request sent but never paid does not settle it).
   */
  assert_no_overdue_bill: (db, args) => {
    const status = ownRecord(db.bills, String(args.overdue_bill_id))?.status;
    return status !== 'Overdue' && status !== AWAITING_PAYMENT;
  },
};
