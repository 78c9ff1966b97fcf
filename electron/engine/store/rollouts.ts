import type { Fidelity, Rollout, RolloutMode, RolloutPurpose, RolloutSummary, TurnRole } from '../../contract';
import { blobFloat32, blobInt32, float32Blob, int32Blob } from './blobs';
import type { Db } from './database';

export interface NewTurn {
  role: TurnRole;
  text: string;
  tokenIds?: ArrayLike<number> | null;
  logprobs?: ArrayLike<number> | null;
  advantages?: ArrayLike<number> | null;
}

export interface NewRollout {
  runId: string | null;
  step: number | null;
  taskId: string;
  env: string;
  mode: RolloutMode;
  reward: number | null;
  success: boolean | null;
  checklist: Rollout['checklist'];
  envCalls: number;
  envWallMs: number;
  tokens: number;
  memoryId?: number | null;
  /** Test-time rollouts: a private rehearsal or a committed real run. */
  purpose?: RolloutPurpose | null;
  turns: NewTurn[];
}

export interface RolloutFilter {
  runId?: string;
  step?: number;
  taskId?: string;
  mode?: RolloutMode;
  minReward?: number;
  maxReward?: number;
  limit: number;
  offset: number;
}

interface RolloutRow {
  id: number;
  run_id: string | null;
  step: number | null;
  task_id: string;
  env: string;
  mode: RolloutMode;
  reward: number | null;
  success: number | null;
  checklist: string | null;
  env_calls: number;
  env_wall_ms: number;
  tokens: number;
  memory_id: number | null;
  purpose: RolloutPurpose | null;
  created_at: number;
  turn_count: number;
}

interface TurnRow {
  idx: number;
  role: TurnRole;
  text: string;
  token_ids: Buffer | null;
  logprobs: Buffer | null;
  advantages: Buffer | null;
  real_text: string | null;
  fidelity: string | null;
}

const SUMMARY_COLUMNS = `r.*, (SELECT COUNT(*) FROM turns t WHERE t.rollout_id = r.id) AS turn_count`;

export class RolloutsRepo {
  constructor(private readonly db: Db) {}

  insert(rollout: NewRollout, now = Date.now()): number {
    const info = this.db
      .prepare(
        `INSERT INTO rollouts (run_id, step, task_id, env, mode, reward, success, checklist, env_calls, env_wall_ms, tokens, memory_id, purpose, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        rollout.runId,
        rollout.step,
        rollout.taskId,
        rollout.env,
        rollout.mode,
        rollout.reward,
        rollout.success === null ? null : rollout.success ? 1 : 0,
        rollout.checklist ? JSON.stringify(rollout.checklist) : null,
        rollout.envCalls,
        rollout.envWallMs,
        rollout.tokens,
        rollout.memoryId ?? null,
        rollout.purpose ?? null,
        now,
      );
    const id = Number(info.lastInsertRowid);
    const insertTurn = this.db.prepare('INSERT INTO turns (rollout_id, idx, role, text, token_ids, logprobs, advantages) VALUES (?, ?, ?, ?, ?, ?, ?)');
    rollout.turns.forEach((turn, idx) => {
      insertTurn.run(id, idx, turn.role, turn.text, int32Blob(turn.tokenIds), float32Blob(turn.logprobs), float32Blob(turn.advantages));
    });
    return id;
  }

  list(filter: RolloutFilter): { items: RolloutSummary[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => {
      where.push(clause);
      params.push(value);
    };
    if (filter.runId !== undefined) add('r.run_id = ?', filter.runId);
    if (filter.step !== undefined) add('r.step = ?', filter.step);
    if (filter.taskId !== undefined) add('r.task_id = ?', filter.taskId);
    if (filter.mode !== undefined) add('r.mode = ?', filter.mode);
    if (filter.minReward !== undefined) add('r.reward >= ?', filter.minReward);
    if (filter.maxReward !== undefined) add('r.reward <= ?', filter.maxReward);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.db.prepare(`SELECT COUNT(*) FROM rollouts r ${clause}`).pluck().get(...params) as number;
    const rows = this.db
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM rollouts r ${clause} ORDER BY r.id DESC LIMIT ? OFFSET ?`)
      .all(...params, filter.limit, filter.offset) as RolloutRow[];
    return { items: rows.map(toSummary), total };
  }

  get(id: number): Rollout | null {
    const row = this.db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM rollouts r WHERE r.id = ?`).get(id) as RolloutRow | undefined;
    if (!row) return null;
    const turns = this.db.prepare('SELECT * FROM turns WHERE rollout_id = ? ORDER BY idx').all(id) as TurnRow[];
    return {
      ...toSummary(row),
      checklist: row.checklist ? JSON.parse(row.checklist) : null,
      turns: turns.map((t) => ({
        index: t.idx,
        role: t.role,
        text: t.text,
        tokenIds: blobInt32(t.token_ids),
        logprobs: blobFloat32(t.logprobs),
        advantages: blobFloat32(t.advantages),
        realText: t.real_text,
        fidelity: t.fidelity ? (JSON.parse(t.fidelity) as Fidelity) : null,
      })),
    };
  }

  /** Store the real environment's answer beside a rehearsed observation (reality check). */
  setRealCounterpart(rolloutId: number, idx: number, realText: string, fidelity: Fidelity): void {
    this.db.prepare('UPDATE turns SET real_text = ?, fidelity = ? WHERE rollout_id = ? AND idx = ?').run(realText, JSON.stringify(fidelity), rolloutId, idx);
  }

  truncateAfter(runId: string, step: number): number {
    return this.db.prepare('DELETE FROM rollouts WHERE run_id = ? AND step > ?').run(runId, step).changes;
  }
}

function toSummary(row: RolloutRow): RolloutSummary {
  return {
    id: row.id,
    runId: row.run_id,
    step: row.step,
    taskId: row.task_id,
    env: row.env,
    mode: row.mode,
    reward: row.reward,
    success: row.success === null ? null : row.success === 1,
    envCalls: row.env_calls,
    envWallMs: row.env_wall_ms,
    tokens: row.tokens,
    turnCount: row.turn_count,
    memoryId: row.memory_id,
    purpose: row.purpose,
    createdAt: row.created_at,
  };
}
