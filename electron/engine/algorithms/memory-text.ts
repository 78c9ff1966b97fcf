import type { RehearsalMemory } from '../../contract';

const callText = (c: { name: string; arguments: Record<string, unknown> }) => `${c.name}(${JSON.stringify(c.arguments)})`;

/** The text form of a rehearsal memory, as placed in the <|memory|> block. */
export function renderMemory(memory: RehearsalMemory): string {
  const lines: string[] = [];
  memory.rehearsals.forEach((r, i) => {
    // Rounded to 2 places, a confidence just below 0 would read "-0.00".
    lines.push(`Rehearsal ${i + 1} (confidence ${(r.confidence > -0.005 ? 0 : r.confidence).toFixed(2)}):`);
    r.plan.forEach((call, j) => {
      lines.push(`  ${j + 1}. ${callText(call)}`);
      const predicted = r.predictedObservations[j];
      if (predicted !== undefined) lines.push(`     expect: ${predicted}`);
    });
    if (r.answer !== null) lines.push(`  answer: ${r.answer}`);
    for (const problem of r.problems) lines.push(`  problem: ${problem}`);
  });
  lines.push('Consensus plan:');
  if (memory.consensus.plan.length === 0) lines.push('  (no tool calls)');
  memory.consensus.plan.forEach((call, j) => lines.push(`  ${j + 1}. ${callText(call)}`));
  if (memory.consensus.answer !== null) lines.push(`Consensus answer: ${memory.consensus.answer}`);
  if (memory.notes) lines.push(`Notes: ${memory.notes}`);
  return lines.join('\n');
}
