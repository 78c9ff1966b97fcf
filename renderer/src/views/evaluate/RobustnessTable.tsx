import type { RobustnessTable as Table } from '../../../../electron/contract';
import { formatNumber, formatPercent } from '../../format/units';
import { formatPoints } from './eval-table';

const WHERE = { system: 'end of the system text', instruction: 'after the instruction', memory: 'memory block' } as const;

/** One evaluation's robustness cells (issue 21): success under each perturbation, its Δ and the verdict. */
export function RobustnessTable({ table, title }: { table: Table; title: string }) {
  const tolerance = Math.round(table.tolerance * 100);
  return (
    <section className="card" data-testid="eval-robustness">
      <h3>Robustness · {title}</h3>
      <p className={table.passed ? undefined : 'knob-issue'} data-testid="eval-robustness-verdict">
        {table.passed
          ? `Passes: every perturbation within ${tolerance} points of the unperturbed success (worst drop ${formatPoints(-table.worstDrop)}).`
          : `Fails: a perturbation costs ${formatPoints(-table.worstDrop)}, more than ${tolerance} points.`}
      </p>
      <div className="table-wrap">
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Perturbation</th>
              <th scope="col">Where</th>
              <th scope="col" className="numeric">
                Tokens
              </th>
              <th scope="col" className="numeric">
                Success
              </th>
              <th scope="col" className="numeric" title="success minus the unperturbed success, same tasks and seeds">
                Δ
              </th>
              <th scope="col" className="numeric">
                Env calls / task
              </th>
              <th scope="col" className="numeric">
                Invalid actions
              </th>
            </tr>
          </thead>
          <tbody>
            {table.cells.map((c) => (
              <tr key={`${c.perturbation}:${c.where}:${c.tokens}`} data-cell={`${c.perturbation}:${c.where ?? '-'}`}>
                <td>{c.perturbation === 'none' ? 'none' : c.perturbation === 'filler' ? 'filler tokens' : 'rehearsal memory'}</td>
                <td>{c.where ? WHERE[c.where] : '—'}</td>
                <td className="numeric">{c.perturbation === 'memory' ? formatNumber(c.tokens) : String(c.tokens)}</td>
                <td className="numeric">{formatPercent(c.success)}</td>
                <td className="numeric" data-col="delta">
                  {c.perturbation === 'none' ? '—' : formatPoints(c.delta)}
                </td>
                <td className="numeric">{formatNumber(c.envCallsPerTask)}</td>
                <td className="numeric">{formatPercent(c.invalidActionRate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
