/**
 * The floor under a long resume's time per recorded step (issue 31): the SDK's own copies before each step
 * (bench/floors.ts, sdkStepCopiesFloor), alone, at growing step counts.
 *
 *   npx tsx bench/sdk-step-copies.ts [N …]      (default 1000 3000 6000 7000 7500 8000 9000 10000)
 */
import { sdkStepCopiesFloor } from './floors';

const sizes = process.argv.slice(2).map(Number);
console.log('steps | ms a step (average) | ms a step (last tenth)');
for (const n of sizes.length > 0 ? sizes : [1000, 3000, 6000, 7000, 7500, 8000, 9000, 10_000]) {
  const { perStep, lastTenth } = sdkStepCopiesFloor(n);
  console.log(`${String(n).padStart(5)} | ${perStep.toFixed(3).padStart(20)} | ${lastTenth.toFixed(3).padStart(22)}`);
}
