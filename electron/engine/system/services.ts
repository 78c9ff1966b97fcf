import type { EnvDetail, EnvsAddMcpInput, EnvsTestOutput, EnvSummary } from '../../contract';
import type { ComputeClient } from '../compute/client';
import type { EventBus } from './events';
import type { HomePaths } from '../home';
import type { JobQueue } from '../jobs/queue';
import type { Store } from '../store';

/** What the environments side offers the handlers (implemented over envs/registry). */
export interface ToolCallResult {
  observation: string;
  ok: boolean;
  wallMs: number;
}

export interface EnvCatalog {
  /** Registered ids, without building anything. */
  ids(): string[];
  list(): Promise<EnvSummary[]>;
  get(id: string): Promise<EnvDetail | null>;
  /** Task references of one split, or of all splits; null for an unknown env. */
  tasks(id: string, split?: 'train' | 'heldout' | 'ood', options?: Record<string, unknown>): Promise<Array<{ id: string; split: 'train' | 'heldout' | 'ood'; instruction: string }> | null>;
  /** One tool call in a fresh episode (the GUI console); null for an unknown env. */
  call(id: string, tool: string, args: Record<string, unknown>, taskId?: string): Promise<ToolCallResult | null>;
  /** Add a user's MCP server + task file (absent in catalogs that cannot grow); `roots`: where its files may lie. */
  addMcp?(entry: EnvsAddMcpInput, roots?: readonly string[]): Promise<EnvSummary>;
  /** Problems with the saved registrations as a whole (a corrupt file), for listings. */
  problems?(): string[];
  /** Remove a user's MCP environment. */
  remove?(id: string): Promise<void>;
  /** Connect, list tools, check tasks and replay every gold trajectory (at most `limit` per split, spread evenly); null for an unknown env. */
  test?(id: string, limit?: number): Promise<EnvsTestOutput | null>;
}

/** Everything a handler may use; built once by the host. */
export interface EngineServices {
  paths: HomePaths;
  store: Store;
  jobs: JobQueue;
  compute: ComputeClient;
  events: EventBus;
  envs: EnvCatalog;
  /** Whether this engine owns the data home, or who does (home/lease.ts). */
  homeAccess(): { writable: boolean; owner: string | null };
}

/** Per-request facts from the transport. */
export interface RequestContext {
  transport: 'ipc' | 'websocket' | 'in-process';
}
