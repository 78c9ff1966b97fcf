import * as m001 from './001-initial';
import * as m002 from './002-evaluations';
import * as m003 from './003-rollout-purpose';
import * as m004 from './004-run-logs';
import * as m005 from './005-export-verl';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

/** Every migration in order. A new schema change is a new file plus one line here. */
export const migrations: Migration[] = [m001, m002, m003, m004, m005];
