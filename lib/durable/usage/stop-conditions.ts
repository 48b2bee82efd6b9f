/**
 * Token budgets as stop conditions, next to the SDK's stepCountIs. They count every step of the run,
 * replayed ones included, so a resumed run does not get a fresh budget.
 */
import type { StopCondition, ToolSet } from 'ai';

export interface TokenBudget {
  /** Stop once input + output tokens reach this. */
  totalTokens?: number;
  inputTokens?: number;
  outputTokens?: number;
}

export function tokenBudgetIs<TOOLS extends ToolSet = ToolSet>(budget: TokenBudget): StopCondition<TOOLS> {
  for (const [name, value] of Object.entries(budget)) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) throw new TypeError(`tokenBudgetIs: ${name} must be a positive number, got ${value}.`);
  }
  return ({ steps }) => {
    let input = 0;
    let output = 0;
    for (const step of steps) {
      input += step.usage.inputTokens ?? 0;
      output += step.usage.outputTokens ?? 0;
    }
    return (
      (budget.totalTokens !== undefined && input + output >= budget.totalTokens) ||
      (budget.inputTokens !== undefined && input >= budget.inputTokens) ||
      (budget.outputTokens !== undefined && output >= budget.outputTokens)
    );
  };
}
