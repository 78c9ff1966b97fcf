import { ContractError } from '../../contract';
import type { HandlerGroup } from './types';

export const jobsHandlers: HandlerGroup<'jobs.list' | 'jobs.cancel'> = (s) => ({
  'jobs.list': () => ({ items: s.jobs.list() }),
  'jobs.cancel': ({ id }) => {
    const job = s.jobs.get(id);
    if (!job) throw new ContractError('not_found', `no job ${id}`);
    if (!s.jobs.cancel(id)) throw new ContractError('conflict', `job ${id} already ${job.state}`);
    return { ok: true as const };
  },
});
