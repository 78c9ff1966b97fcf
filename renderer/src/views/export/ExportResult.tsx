import type { ExportRecord } from '../../../../electron/contract';
import { CopyButton } from '../../components/CopyButton';
import { formatBytes } from '../../format/units';
import { totalBytes } from './export-form';
import { formatInfo } from './export-form';

/** What an export wrote: the folder, every file with its size, and how to load it. */
export function ExportResult({ record }: { record: ExportRecord }) {
  return (
    <div className="export-result" data-testid="export-result" data-export-id={record.id}>
      <dl className="facts">
        <dt>Format</dt>
        <dd>{formatInfo[record.format].label}</dd>
        <dt>Folder</dt>
        <dd>
          <code data-testid="export-folder">{record.outDir}</code>
        </dd>
        <dt>Total</dt>
        <dd>
          {record.files.length} file{record.files.length === 1 ? '' : 's'} · {formatBytes(totalBytes(record.files))}
        </dd>
      </dl>
      {record.notes?.map((note) => (
        <p key={note} className="muted" data-testid="export-note">
          {note}
        </p>
      ))}
      <div className="table-scroll">
        <table className="table export-files">
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col" className="numeric">
                Size
              </th>
            </tr>
          </thead>
          <tbody>
            {record.files.map((file) => (
              <tr key={file.name} data-file={file.name}>
                <td>
                  <code>{file.name}</code>
                </td>
                <td className="numeric" title={`${file.bytes.toLocaleString('en-US')} bytes`}>
                  {formatBytes(file.bytes)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="row snippet-head">
        <strong>Load it</strong>
        <CopyButton text={record.loadSnippet} label="Copy the load snippet" />
      </div>
      <pre className="cli" data-testid="load-snippet">
        <code>{record.loadSnippet}</code>
      </pre>
    </div>
  );
}
