import { describe, expect, it } from 'vitest';
describe('x', () => { it('adds', () => { expect(1 + 1).toBe(2); }); it.skip('s', () => {}); });
