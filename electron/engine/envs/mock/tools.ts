/**
 * The tau2 mock domain's tools, written from its schemas and policy: users own tasks, a task
 * has a title and a status ('pending' | 'completed'), tasks are never deleted. In solo mode the
 * agent also holds the user's notification tools.
 */
import { ToolError, type ToolArgs, type ToolImpl } from '../tau2/tools';
import { ownRecord, writableRecord, type Db, type JsonObject } from '../tau2/db';
import type { JsonValue } from '../types';

/** Tables of the agent's DB (hashed for the DB check); notifications are the user's side. */
export const MOCK_AGENT_TABLES = ['tasks', 'users'] as const;

function table(db: Db, name: string): JsonObject {
  return db[name] as JsonObject;
}

function str(args: ToolArgs, key: string): string {
  return String(args[key]);
}

export const MOCK_TOOLS: Record<string, ToolImpl> = {
  create_task(db, args) {
    const userId = str(args, 'user_id');
    if (!ownRecord(db.users, userId)) throw new ToolError(`User ${userId} not found`);
    const taskId = `task_${Object.keys(table(db, 'tasks')).length + 1}`;
    const task: JsonObject = { task_id: taskId, title: str(args, 'title'), description: (args.description as JsonValue) ?? null, status: 'pending' };
    table(db, 'tasks')[taskId] = task;
    const user = writableRecord(db, 'users', userId);
    (user.tasks as JsonValue[]).push(taskId);
    return task;
  },
  get_users(db) {
    return Object.values(table(db, 'users'));
  },
  update_task_status(db, args) {
    const taskId = str(args, 'task_id');
    if (!ownRecord(db.tasks, taskId)) throw new ToolError(`Task ${taskId} not found`);
    const task = writableRecord(db, 'tasks', taskId);
    task.status = str(args, 'status');
    return task;
  },
  transfer_to_human_agents() {
    return 'Transfer successful';
  },
  check_notifications(db) {
    return Object.values(table(db, 'notifications'));
  },
  dismiss_notification(db, args) {
    const id = str(args, 'notification_id');
    if (!ownRecord(db.notifications, id)) throw new ToolError(`Notification ${id} not found`);
    const n = writableRecord(db, 'notifications', id);
    n.status = 'read';
    return n;
  },
};

/** Functions tasks use to set up the world; not offered to the agent. */
export const MOCK_INIT_FUNCTIONS: Record<string, ToolImpl> = {
  ...MOCK_TOOLS,
  add_notification(db, args) {
    const n: JsonObject = {
      notification_id: str(args, 'notification_id'),
      message: str(args, 'message'),
      status: 'unread',
      task_id: args.task_id ?? null,
    };
    table(db, 'notifications')[n.notification_id as string] = n;
    return n;
  },
};

/** Env assertions of the mock tasks: each returns whether the end state satisfies it. */
export const MOCK_ASSERTIONS: Record<string, (db: Db, args: ToolArgs) => boolean> = {
  assert_task_status: (db, args) => ownRecord(db.tasks, str(args, 'task_id'))?.status === args.expected_status,
  assert_notification_status: (db, args) => ownRecord(db.notifications, str(args, 'notification_id'))?.status === args.expected_status,
};
