// @vitest-environment jsdom
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Turn } from '../../../../electron/contract';
import { TokenHeat } from '../../../../renderer/src/views/trajectories/TokenHeat';

afterEach(cleanup);

const act: Turn = { index: 1, role: 'act', text: 'get_users\n', tokenIds: [41, 7, 9], logprobs: [-0.1, -2, -0.5], advantages: null, realText: null, fidelity: null };
const cells = (container: HTMLElement) => [...container.querySelectorAll('.tok')];

describe('TokenHeat', () => {
  it('shows each token as its text, with the id and log-prob on hover', () => {
    const { container } = render(<TokenHeat turn={{ ...act, tokenTexts: ['get', '_users', '\n'] }} measure="logprob" />);
    expect(cells(container).map((c) => c.textContent)).toEqual(['get', '_users', '↵']);
    expect(cells(container)[1]!.getAttribute('title')).toMatch(/^token 1: "_users" \(id 7\) · log-prob -2/);
  });

  it('falls back to ids where the engine had no tokenizer to decode with', () => {
    const { container } = render(<TokenHeat turn={act} measure="logprob" />);
    expect(cells(container).map((c) => c.textContent)).toEqual(['41', '7', '9']);
  });
});
