import type { ExportFormat, ExportRecord } from '../../contract';
import type { Db } from './database';

interface ExportRow {
  id: number;
  run_id: string | null;
  model: string | null;
  step: number | null;
  format: ExportFormat;
  path: string;
  files: string;
  created_at: number;
}

export type NewExport = Omit<ExportRecord, 'id' | 'createdAt' | 'loadSnippet'>;

export class ExportsRepo {
  constructor(
    private readonly db: Db,
    private readonly snippet: (format: ExportFormat, outDir: string, files: ExportRecord['files']) => string,
  ) {}

  insert(e: NewExport, now = Date.now()): ExportRecord {
    const info = this.db
      .prepare('INSERT INTO exports (run_id, model, step, format, path, files, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(e.runId, e.model, e.step, e.format, e.outDir, JSON.stringify(e.files), now);
    return this.list().find((r) => r.id === Number(info.lastInsertRowid))!;
  }

  list(limit = 200): ExportRecord[] {
    const rows = this.db.prepare('SELECT * FROM exports ORDER BY created_at DESC, id DESC LIMIT ?').all(limit) as ExportRow[];
    return rows.map((r) => ({
      id: r.id,
      runId: r.run_id,
      model: r.model,
      step: r.step,
      format: r.format,
      outDir: r.path,
      files: JSON.parse(r.files),
      loadSnippet: this.snippet(r.format, r.path, JSON.parse(r.files)),
      createdAt: r.created_at,
    }));
  }
}
