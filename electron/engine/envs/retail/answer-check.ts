/** Whether an answer text passes a checklist answer item (shared by task building and finalCheck). */
import { scoreChecklist } from '../checklist';
import type { ChecklistItem } from '../types';

export function checklistAnswerPasses(item: ChecklistItem, answer: string): boolean {
  return scoreChecklist([item], { calls: [], answer, messages: [answer], formatErrors: 0 }).items[0].passed;
}
