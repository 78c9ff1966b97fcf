// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { PreflightPanel } from '../../../../renderer/src/views/new-run/PreflightPanel';

afterEach(cleanup);

const base = {
  ok: false,
  params: 160_000,
  memoryEstimateBytes: 50 * 2 ** 20,
  taskCounts: { train: 200, heldout: 40, ood: 0 },
  plannedSteps: 60,
  checks: [
    { name: 'stages', ok: true, detail: 'sft × 10 → envace × 50' },
    { name: 'demonstrations fit', ok: false, detail: "no expert demonstration of retail fits the model's context of 256 tokens; set rollout.toolSchemas 'compact' → 'none'" },
    { name: 'format budget', ok: true, warning: true, detail: '10 SFT steps for a nano model trained from scratch; raise sft.steps' },
  ],
};

describe('PreflightPanel', () => {
  it('marks failures, cautions and passes apart, with each check’s knob in its detail', () => {
    render(<PreflightPanel result={base} />);
    const items = within(screen.getByTestId('preflight')).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('strong')!.textContent)).toEqual(['✓ stages', '✗ demonstrations fit', '⚠ format budget']);
    expect(items[1].textContent).toMatch(/rollout\.toolSchemas/);
    expect(items[2].dataset.warning).toBe('true');
    expect(screen.getByText(/fix these before starting/)).toBeTruthy();
  });

  it('shows the time and disk estimate with how each was made, and the retention behind the disk figure', () => {
    const estimate = {
      seconds: 1449,
      secondsBasis: "rough, from tiny's bench figures",
      checkpointBytes: 59_481_088,
      checkpointsKept: 4,
      diskBytes: 4 * 59_481_088,
      diskBasis: '4 of 45 checkpoints kept (checkpointKeepLast 3 + the best by held-out success)',
    };
    render(<PreflightPanel result={{ ...base, estimate }} />);
    const shown = screen.getByTestId('preflight-estimate').textContent!;
    expect(shown).toMatch(/about 24 min 9 s/);
    expect(shown).toMatch(/bench figures/);
    expect(shown).toMatch(/about 227 MiB of checkpoints \(4 × 56.7 MiB\)/);
    expect(shown).toMatch(/checkpointKeepLast 3/);
  });

  it('shows no estimate block for an engine that sends none', () => {
    render(<PreflightPanel result={base} />);
    expect(screen.queryByTestId('preflight-estimate')).toBeNull();
  });
});
